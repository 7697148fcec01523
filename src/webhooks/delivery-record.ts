import type { Logger } from 'pino';
import type { WebhookSettings } from '../config.js';
import type { Database, Transaction } from '../database/database.js';
import type { JobQueue } from '../jobs/job-queue.js';
import { tenantGroup } from './delivery-fairness.js';
import { QUEUE, type Job } from './delivery-job.js';
import { finishSend } from './delivery-rate-limit.js';
import { attemptHealth, nextDeliveryState, type EndpointAfter, type Health, type NextState, type Outcome } from './delivery-next-state.js';

/**
 * The SQL that writes an attempt's outcome: the endpoint's health, then the delivery's next
 * state (decided in delivery-next-state.ts, without a database), the attempt's row in the
 * attempt log (contract section 22), then the next attempt's job when one is due, all in one
 * transaction. Apart from the attempt (delivery-attempt.ts), which
 * reads the row, makes the POST and the span, and calls this.
 */

/** What writing an attempt's outcome needs of the delivery workers. */
export interface RecordContext {
  database: Database;
  boss: JobQueue['boss'];
  settings: WebhookSettings;
  logger: Logger;
  fairness: boolean;
}

/**
 * The attempt's outcome, its row in the attempt log, its endpoint's health, and the next
 * attempt's job when one is due, in one transaction. `startedAt`: when the POST began; `sendId`:
 * the send claimed under the endpoint's rate limit (delivery-rate-limit.ts), finished here.
 */
export function recordAttempt(
  context: RecordContext,
  job: Job,
  delivery: { endpoint_id: string; tenant: string },
  outcome: Outcome,
  startedAt: Date,
  sendId: string | null,
): Promise<NextState['result']> {
  const { database, settings, fairness } = context;
  // With the endpoint's health in the same transaction: no reader sees the endpoint disabled
  // (its other deliveries failed) while this one still reads pending.
  return database.transaction(async (tx) => {
    const endpoint = fairness ? await writeEndpointHealth(tx, settings, delivery.endpoint_id, attemptHealth(outcome)) : undefined;
    const next = nextDeliveryState(job.attempt, outcome, endpoint, Math.random(), settings);
    if (next.disabledReason !== undefined) await disableEndpoint(context, tx, delivery.endpoint_id, job.deliveryId, next.disabledReason);
    const delivered = next.result === 'delivered';
    // The attempt's outcome, on the row that still waits for this attempt (one row, or none).
    const updated = await tx.query(
      `update webhook_delivery set attempts = ?, last_status = ?, last_error = ?, last_attempt_at = now(),
         status = case when ? then 'delivered' when ? then 'failed' else 'pending' end,
         delivered_at = case when ? then now() end,
         next_attempt_at = now() + make_interval(secs => ?)
       where id = ? and attempts = ? - 1 and status = 'pending'
       returning 1`,
      [
        job.attempt,
        outcome.status ?? null,
        outcome.error ?? null,
        delivered,
        next.result === 'failed',
        delivered,
        next.delaySeconds,
        job.deliveryId,
        job.attempt,
      ],
    );
    // Its row in the attempt log: every POST made is one, even one whose delivery moved on
    // meanwhile (a duplicate job's, or one the endpoint's disabling failed): the receiver got it.
    // None when the delivery is gone (its event past retention): its log went with it.
    await tx.query(
      `insert into webhook_attempt (delivery_id, endpoint_id, event_id, attempt, started_at, duration_ms, response_status, error, response_body)
       select d.id, d.endpoint_id, d.event_id, ?, ?, ?, ?, ?, ? from webhook_delivery d where d.id = ?`,
      [
        job.attempt,
        startedAt,
        outcome.elapsedMs ?? 0,
        outcome.status ?? null,
        outcome.errorClass ?? null,
        outcome.body ?? null,
        job.deliveryId,
      ],
    );
    if (next.nextAttempt !== undefined && updated.length === 1) {
      await context.boss.send(QUEUE, { deliveryId: job.deliveryId, attempt: next.nextAttempt } satisfies Job, {
        startAfter: next.delaySeconds,
        db: tx,
        ...tenantGroup(delivery.tenant, fairness),
      });
    }
    // Last, after the endpoint's row: a claim locks that row before it deletes sends, so both take
    // their locks in one order.
    if (sendId !== null) await finishSend(tx, sendId);
    return next.result;
  });
}

/**
 * An endpoint's health after an attempt. A fast success clears its failures; a failure, or a
 * slow success (delivery-fairness.ts), backs the whole endpoint off (once per round: attempts
 * already in flight when it failed do not push it further). A slow success is still a success:
 * it ends the failing time that disables an endpoint (it delivers). Returns how long the
 * endpoint now waits, and whether it has been failing for the whole retry window (then
 * nextDeliveryState disables it).
 */
async function writeEndpointHealth(tx: Transaction, settings: WebhookSettings, endpointId: string, health: Health): Promise<EndpointAfter> {
  if (health === 'fast') {
    await tx.query('update webhook_endpoint set failures = 0, failing_since = null, retry_at = null where id = ? and failures > 0', [
      endpointId,
    ]);
    return { waitSeconds: 0, failingPastWindow: false };
  }
  const rows = await tx.query<{ wait: number; expired: boolean | null }>(
    `update webhook_endpoint set
         failures = case when retry_at > now() then failures else failures + 1 end,
         failing_since = case when ? then coalesce(failing_since, now()) end,
         retry_at = case when retry_at > now() then retry_at
           else now() + make_interval(secs => ? * power(2, least(failures, 16)) * (0.5 + random() / 2)) end
       where id = ?
       returning extract(epoch from retry_at - now())::float8 as wait, failing_since < now() - make_interval(secs => ?) as expired`,
    [health === 'failed', settings.retryBaseSeconds, endpointId, settings.retryWindowSeconds],
  );
  return { waitSeconds: rows[0]?.wait ?? 0, failingPastWindow: Boolean(rows[0]?.expired) };
}

/**
 * After failing for the whole retry window, or on a 410 Gone, the endpoint is disabled and its
 * other pending deliveries failed. One already disabled (by request, meanwhile) keeps its reason.
 */
async function disableEndpoint(context: RecordContext, tx: Transaction, endpointId: string, deliveryId: string, reason: string) {
  await tx.query(
    `update webhook_endpoint set disabled_at = now(), disabled_reason = ?, retry_at = null where id = ? and disabled_at is null`,
    [reason, endpointId],
  );
  await tx.query(
    `update webhook_delivery set status = 'failed', last_error = 'the endpoint is disabled' where endpoint_id = ? and status = 'pending' and id <> ?`,
    [endpointId, deliveryId],
  );
  context.logger.warn({ endpointId, reason }, 'webhook endpoint disabled');
}
