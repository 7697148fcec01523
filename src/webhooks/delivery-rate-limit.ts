import type { Logger } from 'pino';
import type { Database, Transaction } from '../database/database.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { tenantGroup } from './delivery-fairness.js';
import { QUEUE, type Job } from './delivery-job.js';
import { decideClaim, type Send } from './send-window.js';

/**
 * The SQL of an endpoint's rate limit (contract section 22; docs/decisions.md, "A webhook
 * endpoint's rate limit"): a send is claimed before the POST and finished with the attempt's
 * outcome, in `webhook_send`, so that every instance's sends count against the one limit. What is
 * allowed, and when a refused job comes back, is decided in send-window.ts. Only endpoints with a
 * limit come here: delivery-attempt.ts reads the limit with the delivery, and an endpoint without
 * one costs no statement more.
 */

/** What a claim needs of the delivery workers. */
export interface ClaimContext {
  database: Database;
  boss: JobQueue['boss'];
  settings: { timeoutSeconds: number };
  fairness: boolean;
  metrics?: ServiceMetrics;
}

/**
 * A claim's outcome: the send's row (finish it with the attempt's outcome), null when the
 * endpoint has no limit any more, or refused: the job was put off to `until`, no attempt made.
 */
export type Claim = { sendId: string | null } | { refused: Date };

/**
 * Claims a send to `endpointId` for `job`, or, when the endpoint is at its limit, puts the job off
 * to when it may try again (a new job, as the endpoint's back-off does: a throttled endpoint never
 * holds a slot, which other tenants' deliveries need), in one transaction. The endpoint's row is
 * locked first, so claims of all instances queue on it, and its sends are read by the next
 * statement, after the lock (read committed: its snapshot holds every claim committed before).
 */
export function claimSend(context: ClaimContext, job: Job, endpointId: string, tenant: string): Promise<Claim> {
  return context.database.transaction(async (tx) => {
    const [endpoint] = await tx.query<{ limit: number | null; paced_until: number | null }>(
      `select rate_limit_per_second as limit, extract(epoch from rate_paced_until)::float8 as paced_until
       from webhook_endpoint where id = ? for update`,
      [endpointId],
    );
    // The limit was removed since the delivery was read.
    if (!endpoint || endpoint.limit === null) return { sendId: null };
    const [window] = await tx.query<{ now: number; sends: Send[] }>(
      `select extract(epoch from clock_timestamp())::float8 as now,
         coalesce(json_agg(json_build_object('id', id::text, 'claimedAt', extract(epoch from claimed_at),
           'finishedAt', extract(epoch from finished_at)) order by claimed_at), '[]') as sends
       from webhook_send where endpoint_id = ?`,
      [endpointId],
    );
    const decision = decideClaim({
      limit: endpoint.limit,
      now: window.now,
      sends: window.sends,
      pacedUntil: endpoint.paced_until,
      lifeBoundSeconds: context.settings.timeoutSeconds,
    });
    if (decision.allowed) {
      const [send] = await tx.query<{ id: string }>(
        `with stale as (delete from webhook_send where endpoint_id = ? and id = any(?::bigint[]))
         insert into webhook_send (endpoint_id) values (?) returning id::text as id`,
        [endpointId, decision.stale, endpointId],
      );
      return { sendId: send.id };
    }
    const until = new Date(decision.retryAt * 1000);
    // The time shown as its next attempt is when its job may start, as for the endpoint's back-off.
    await tx.query(
      `with stale as (delete from webhook_send where endpoint_id = ? and id = any(?::bigint[])),
         line as (update webhook_endpoint set rate_paced_until = to_timestamp(?) where id = ?)
       update webhook_delivery set next_attempt_at = greatest(next_attempt_at, ?) where id = ?`,
      [endpointId, decision.stale, decision.pacedUntil, endpointId, until, job.deliveryId],
    );
    await context.boss.send(QUEUE, job, { startAfter: until, db: tx, ...tenantGroup(tenant, context.fairness) });
    context.metrics?.observeDeliveryThrottled();
    return { refused: until };
  });
}

/**
 * The send's finish, in the transaction that writes the attempt's outcome: the database's clock
 * then is after the answer came (or the attempt failed), which errs on the side of the limit. A
 * row already deleted (its worker thought dead) is no matter.
 */
export async function finishSend(tx: Transaction, sendId: string): Promise<void> {
  await tx.query('update webhook_send set finished_at = clock_timestamp() where id = ?', [sendId]);
}

/**
 * Deletes sends that stopped counting long ago: a claim only clears its own endpoint's rows, so an
 * endpoint whose limit was removed, or that was deleted, keeps its last few. Run with the event
 * retention, every ten minutes; the table is small, a scan is cheap.
 */
export function purgeOldSends(database: Database, timeoutSeconds: number, logger: Logger): Promise<unknown> {
  return database
    .query(`delete from webhook_send where coalesce(finished_at, claimed_at + make_interval(secs => ?)) < now() - interval '1 hour'`, [
      timeoutSeconds,
    ])
    .catch((error) => logger.warn({ err: error }, 'could not delete old webhook sends'));
}
