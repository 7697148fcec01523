import { readFileSync } from 'node:fs';

/** A V8 CPU profile as `node --cpu-prof` writes it (the fields read here). */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Milliseconds of samples that were not idle. */
  busyMs: number;
  /** Self time by where the code comes from: an npm package, a file of this service, node's own, GC. */
  byOrigin: Array<{ origin: string; share: number }>;
  byFunction: Array<{ name: string; share: number }>;
}

/**
 * Self time of a CPU profile, grouped by origin and by function, as shares of the busy time
 * (idle samples left out), from `sinceMs` after the profile began (start-up and warm-up left
 * out). For `npm run bench -- --profile`, and the profiles in docs/benchmark.md.
 */
export function summarizeCpuProfile(path: string, { top = 25, sinceMs = 0 } = {}): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  let elapsed = 0;
  profile.samples.forEach((id, index) => {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const time = profile.timeDeltas[index] ?? 0;
    elapsed += time;
    if (elapsed < sinceMs * 1000 || functionName === '(idle)') return;
    busy += time;
    const origin = originOf(functionName, url);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + time);
    const name = `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)'}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
  });
  const shares = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, time]) => ({ key, share: time / busy }));
  return {
    busyMs: busy / 1000,
    byOrigin: shares(byOrigin).map(({ key, share }) => ({ origin: key, share })),
    byFunction: shares(byFunction).map(({ key, share }) => ({ name: key, share })),
  };
}

/** `pg`, `@apollo/server`, `service src/rest/rest-router.js`, `node:_http_server`, `(garbage collector)`, `native writev`. */
export function originOf(functionName: string, url: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName}`;
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url);
  if (inPackage) return inPackage[1];
  if (url.startsWith('node:')) return url;
  return `service ${shortUrl(url)}`;
}

function shortUrl(url: string): string {
  return url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, '');
}
