import { performance } from 'node:perf_hooks';

export type Readiness = 'ready' | 'migrations pending' | 'database unreachable';

/**
 * Contract section 12: `/readyz` answers from a check at most `maxAgeMs` old. It needs no token
 * and is not rate limited (orchestrators call it), so querying the database per call let anyone
 * turn it into load: 487 calls a second took another caller's median read from 6 to 60 ms
 * (security review 2, L4). Here a check starts only when the last one is `maxAgeMs` old and none
 * is running, so a process makes at most one a second whatever the request rate, and every
 * caller in between shares its answer. `check` must not reject.
 */
export function cachedReadiness(
  check: () => Promise<Readiness>,
  maxAgeMs = 1000,
  now: () => number = () => performance.now(),
): () => Promise<Readiness> {
  let last: { startedAt: number; result: Promise<Readiness>; settled: boolean } | undefined;
  return () => {
    if (last && (!last.settled || now() - last.startedAt < maxAgeMs)) return last.result;
    const current = { startedAt: now(), settled: false, result: check() };
    void current.result.finally(() => (current.settled = true));
    last = current;
    return current.result;
  };
}
