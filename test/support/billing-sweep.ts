import type { TestServiceHandle } from './test-service.js';

/**
 * What the billing sweep's tests wait on (contract section 19, "Lapse"): a state, or sweeps that
 * completed, never a length of time. The limits are what a busy two-core machine needs.
 */

/** Polls `check` until it holds; fails after `ms`. */
export async function until(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Sweeps completed so far on the service's database (pg-boss keeps a completed job's row for days). */
export async function sweepsDone(service: Pick<TestServiceHandle, 'sql'>): Promise<number> {
  const [{ n }] = await service.sql<{ n: number }>(
    `select count(*)::int as n from pgboss.job where name = 'billing-sweep' and state = 'completed'`,
  );
  return n;
}

/** Until `count` more sweeps have completed: at least `count - 1` of them started after this call. */
export async function moreSweeps(service: Pick<TestServiceHandle, 'sql'>, count: number): Promise<void> {
  const target = (await sweepsDone(service)) + count;
  await until(async () => (await sweepsDone(service)) >= target, `${count} more billing sweeps`);
}
