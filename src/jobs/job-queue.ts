import { PgBoss, type Queue } from 'pg-boss';
import type { Logger } from 'pino';
import type { Database, Transaction } from '../database/database.js';
import type { ServiceMetrics } from '../observability/metrics.js';

/**
 * The process's job queue (pg-boss on the service's PostgreSQL; contract sections 11 and 19): one
 * PgBoss, with its pool of POOL_SIZE for its polling and maintenance, shared by the webhook
 * delivery workers (webhooks/delivery.ts) and the billing sweep (policies/billing-sweep.ts). Each
 * job is claimed by exactly one worker of any instance (SKIP LOCKED); a job whose worker died
 * expires and pg-boss runs it again. Started when this instance runs either of them.
 */

/** Connections of pg-boss's pool. A webhook attempt holds none of either pool while it waits on the receiver. */
const POOL_SIZE = 4;

export interface JobQueue {
  readonly boss: PgBoss;
  /**
   * Creates queue `name` unless it exists. pg-boss's create_queue deadlocks when two processes
   * create the same new queue at once (each inserts the queue's row, then waits for the other):
   * the workers of a cluster, or instances, starting together on a new database. So one at a
   * time, under a lock our transaction holds while pg-boss works on its own connection; once the
   * queue exists the call changes nothing.
   */
  createQueue(name: string, options: Omit<Queue, 'name'>): Promise<void>;
  /** Stops pg-boss (its workers, its maintenance, its pool): after the work on it has stopped. */
  stop(): Promise<void>;
}

export interface JobQueueOptions {
  /** The service's gateway: the lock around a queue's creation. */
  database: Database;
  /** For pg-boss's own pool. */
  databaseUrl: string;
  logger: Logger;
  /** How often pg-boss looks for expired jobs and keeps its tables (webhooks/delivery.ts: deliverySuperviseSeconds). */
  superviseSeconds: number;
  /** pg-boss's pool, as `db_pool_connections{pool="jobs"}` (contract section 13). */
  metrics?: ServiceMetrics;
}

export async function startJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  const { database, logger, superviseSeconds } = options;
  // pg-boss 12 looks for expired jobs in its monitor pass (every monitorIntervalSeconds, checked
  // every superviseIntervalSeconds; both 60 s by default), no longer in maintenance as pg-boss 10
  // did: all three are set to the same interval.
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    max: POOL_SIZE,
    superviseIntervalSeconds: superviseSeconds,
    monitorIntervalSeconds: superviseSeconds,
    maintenanceIntervalSeconds: superviseSeconds,
    // pg-boss 12 makes spans and metrics of its own (every poll, every job) when an OpenTelemetry
    // SDK is registered; the delivery span is the one the service promises (spec section 13).
    openTelemetry: { enabled: false },
  });
  boss.on('error', (error) => logger.warn({ err: error }, 'job queue error'));
  await boss.start();
  // The queue's own connections (pg-boss's pool).
  const queueDb = boss.getDb();
  options.metrics?.watchPool('jobs', () => {
    const counts = queueDb.poolCounts?.();
    return counts ? { inUse: counts.total - counts.idle, idle: counts.idle, waiting: counts.waiting } : { inUse: 0, idle: 0, waiting: 0 };
  });
  return {
    boss,
    createQueue: (name, queueOptions) =>
      untimed(database, async (tx) => {
        await tx.query(`select pg_advisory_xact_lock(hashtext('org-policy:create-queue:' || ?))`, [name]);
        await boss.createQueue(name, queueOptions);
      }),
    // pg-boss 12's stop() always waits for the workers (pg-boss 10's `wait: true`).
    stop: () => boss.stop({ graceful: true, timeout: 5_000 }),
  };
}

/**
 * `work` in a transaction without the service's statement and idle-in-transaction timeouts,
 * which are for requests: a queue's creation waits on another instance's lock, and the webhooks'
 * retention purge may delete a large backlog in one statement.
 */
export function untimed<T>(database: Database, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return database.transaction(async (tx) => {
    await tx.query('set local statement_timeout = 0');
    await tx.query('set local idle_in_transaction_session_timeout = 0');
    return work(tx);
  });
}
