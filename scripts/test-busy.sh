#!/usr/bin/env bash
# `npm run test:busy`: the whole suite (npm test) with one core kept busy by Debian's stress-ng,
# as on a machine a neighbour is using. A suite that only passes on a quiet machine hides real
# failures behind re-runs. Installs stress-ng when missing; stops it whatever the result, and
# exits with the suite's code. Extra arguments go to vitest (e.g. a file).
set -uo pipefail
cd "$(dirname "$0")/.."
if ! command -v stress-ng > /dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends stress-ng > /dev/null 2>&1 || { apt-get update > /dev/null && apt-get install -y --no-install-recommends stress-ng > /dev/null; } || exit 1
fi
stress-ng --cpu 1 --timeout 3600s --quiet &
stress=$!
trap 'kill "$stress" 2> /dev/null; wait "$stress" 2> /dev/null' EXIT
npm test -- "$@"
