import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { TestService } from './test-service.js';

/**
 * How many sessions of the test's database wait on a lock: a race test holds a row or a table
 * and waits until its racers queue behind it. Asked outside the lock holder's transaction:
 * pg_stat_activity is a snapshot taken once per transaction.
 */
export async function sessionsWaitingOnLocks(db: Pick<TestService, 'sql'>): Promise<number> {
  const [{ n }] = await db.sql<{
    n: number;
  }>(`select count(distinct l.pid)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
    where not l.granted and a.datname = current_database()`);
  return n;
}

/** Polls `condition` until it holds (an event in another process: no fixed wait). */
export async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await sleep(20);
}

/** A transaction holding a lock on `table` until `release()`: the database is "stuck" for the service. */
export async function lockTable(databaseUrl: string, table: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query(`lock table ${table} in access exclusive mode`);
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}

/**
 * Runs `race` while the charge table is held (reads stay open), until two of its requests wait
 * on a lock, then lets them go; returns its answers. With a policy's row lock that is one at the
 * charges and one at the lock; without it, both at the charges, each having read a ledger the
 * other is about to change. (Should they all be answered first, something else refused them.)
 */
export async function raceAtTheCharges<T>(db: Pick<TestService, 'databaseUrl' | 'sql'>, race: () => Promise<T>): Promise<T> {
  const holder = new pg.Client({ connectionString: db.databaseUrl });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query('lock table charge in exclusive mode');
    let answered = false;
    const racing = race();
    void racing.finally(() => (answered = true));
    await waitUntil(async () => answered || (await sessionsWaitingOnLocks(db)) >= 2);
    await holder.query('commit');
    return await racing;
  } finally {
    await holder.end();
  }
}
