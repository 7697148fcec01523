/**
 * V8's memory settings for the service, chosen by measurement on Node 24 (docs/benchmark.md,
 * "Memory on Node 24"): at 32 connections a process with V8's defaults peaked at 329-338 MB,
 * with these at 198-201 MB. They cost throughput: 0.69-0.94x of the same build with V8's
 * defaults, read by read (paired, `npm run bench -- --v8-flags=...`), most of it `--no-maglev`.
 *
 * - `--max-semi-space-size=8`: on a machine with gigabytes free, Node 24's V8 lets the young
 *   generation grow to 2 × 64 MB (Node 20's stopped at 2 × 16 MB). That alone was 134 MB of a
 *   peak of 334. V8 reads it once, when it starts, so it has to be on the command line:
 *   `npm start`'s (package.json), the cluster's workers' (cluster-primary.ts) and the bench's.
 * - `--heap-growing-percent=40`: the old generation may grow by 40% of what survived the last
 *   full collection before the next one (V8's default lets it reach about four times that).
 * - `--no-maglev`: V8's mid-tier compiler, on by default since Node 22, kept about 20 MB of
 *   compiler memory per process (35 MB of peak RSS); Node 20 ran without it. The costly one:
 *   REST GET policy kept 0.67x of its throughput without it, the other reads 0.90-0.94x. With
 *   Maglev and any other setting tightened instead, a process stayed at 212-230 MB.
 * - Measured one by one (docs/benchmark.md): the semi-space cap costs 0-5% for 15 MB, the heap
 *   growth limit up to 13% of the GraphQL read for 150 MB.
 *
 * The last two are read as V8 goes: main.ts sets them at start-up, so a `node dist/src/main.js`
 * has them too. A flag given on the command line wins over each of them.
 */
export const START_FLAGS = ['--max-semi-space-size=8'];
export const RUNTIME_FLAGS = ['--heap-growing-percent=40', '--no-maglev'];

/** The flags of `flags` whose name (`--no-` included) the command line `execArgv` does not give. */
export function notGiven(flags: readonly string[], execArgv: readonly string[]): string[] {
  const name = (flag: string) => flag.split('=')[0].replace(/^--no-/, '--');
  const given = new Set(execArgv.map(name));
  return flags.filter((flag) => !given.has(name(flag)));
}
