import type { Logger } from 'pino';
import type { Database } from '../database/database.js';
import { rfc3339 } from '../database/read-model.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { TENANT_OF_ORGANIZATION, tenantGroup } from './delivery-fairness.js';
import { QUEUE, type Job } from './delivery-job.js';

/**
 * The relay: moves the deliveries that committed transactions wrote (the create's trigger) onto
 * the job queue. Apart from the attempts, which it never makes: it only turns rows into jobs,
 * on one instance at a time, and loops until the workers stop.
 */

/** What the relay needs of the delivery workers. */
export interface RelayContext {
  database: Database;
  boss: JobQueue['boss'];
  logger: Logger;
  fairness: boolean;
}

/** Deliveries moved in one transaction; a full batch means more may be waiting. */
const BATCH = 200;

/**
 * Hands unqueued deliveries to the queue: marked and enqueued in one transaction, by one
 * instance. A new delivery gets its first attempt now. A delivery re-enqueued after the queue
 * was rebuilt (Migration20261125000000_pgboss_12: pg-boss 12 cannot migrate pg-boss 10's
 * schema) may have made attempts already: it gets the next one (attempt() skips any other),
 * not before the time its row shows, so the back-off schedule the API shows is kept. A
 * delivery to an endpoint that is backed off waits with it.
 */
export function relay({ database, boss, fairness }: RelayContext): Promise<number> {
  // Until when the endpoint's back-off puts the delivery off: never a first attempt a caller asked for (beforeAttempt).
  const BACKED_OFF = fairness ? 'case when d.attempts > 0 or not d.requested then w.retry_at end' : 'null';
  return database.transaction(async (tx) => {
    const rows = await tx.query<{ id: string; attempts: number; start_after: string | null; tenant: string }>(
      `select d.id, d.attempts, ${TENANT_OF_ORGANIZATION} as tenant,
         case when greatest(d.next_attempt_at, ${BACKED_OFF}) > now() then ${rfc3339(`greatest(d.next_attempt_at, ${BACKED_OFF})`)} end as start_after
       from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id join organization o on o.id = w.organization_id
       where not d.enqueued order by d.created_at limit ${BATCH} for update of d skip locked`,
    );
    if (rows.length > 0) {
      const jobs = rows.map((row) => ({
        data: { deliveryId: row.id, attempt: row.attempts + 1 } satisfies Job,
        ...(row.start_after ? { startAfter: new Date(row.start_after) } : {}),
        ...tenantGroup(row.tenant, fairness),
      }));
      await boss.insert(QUEUE, jobs, { db: tx });
      // The time shown as its next attempt is when its job may start (its endpoint's back-off).
      const ids = rows.map((row) => row.id);
      await tx.query(
        'update webhook_delivery set enqueued = true, next_attempt_at = greatest(next_attempt_at, (?::timestamptz[])[array_position(?::uuid[], id)]) where id = any(?::uuid[])',
        [rows.map((row) => row.start_after), ids, ids],
      );
    }
    return rows.length;
  });
}

/** Runs the relay every `pollSeconds` (at once again after a full batch) until `stopped()`. */
export async function relayLoop(context: RelayContext, pollSeconds: number, stopped: () => boolean): Promise<void> {
  while (!stopped()) {
    const moved = await relay(context).catch((error) => {
      context.logger.warn({ err: error }, 'webhook relay failed; retrying');
      return 0;
    });
    // A full batch: more may be waiting.
    if (moved < BATCH) await new Promise((resolve) => setTimeout(resolve, pollSeconds * 1000));
  }
}
