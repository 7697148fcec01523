/**
 * Microseconds per call of `work`, after a warm-up of a tenth as many calls: for the in-process
 * measurements the bench prints (bench-metrics.ts, bench-query-cost.ts).
 */
export function microsPerCall(work: (i: number) => void, times: number): number {
  for (let i = 0; i < times / 10; i++) work(i);
  const started = process.hrtime.bigint();
  for (let i = 0; i < times; i++) work(i);
  return Number(process.hrtime.bigint() - started) / times / 1000;
}
