import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FieldCipher } from '../crypto/field-cipher.js';
import { rfc3339 } from '../database/read-model.js';
import { EVENT_BODY } from '../events/event.reads.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { TENANT_OF_ORGANIZATION, tenantGroup } from './delivery-fairness.js';
import { QUEUE, type Job } from './delivery-job.js';
import { beforeAttempt, type DeliveryGate } from './delivery-next-state.js';
import { post, type Agents } from './delivery-post.js';
import { claimSend } from './delivery-rate-limit.js';
import { recordAttempt, type RecordContext } from './delivery-record.js';

/**
 * One job of the delivery queue: read its delivery, let the gate (delivery-next-state.ts) say
 * whether it is skipped, dropped, put off with its backed-off endpoint, or attempted; an attempt
 * to an endpoint with a rate limit claims its send first, or is put off (delivery-rate-limit.ts);
 * an attempt is the signed POST (delivery-post.ts) in a span of its own, its outcome (and its row in the
 * attempt log) written by delivery-record.ts. Apart from the slots that fetch jobs (delivery-slots.ts): this is what one
 * job does, whoever fetched it.
 */

/** What an attempt needs of the delivery workers. */
export interface AttemptContext extends RecordContext {
  cipher: FieldCipher;
  metrics?: ServiceMetrics;
  agents: Agents;
}

interface DeliveryRow extends DeliveryGate {
  endpoint_id: string;
  /** The `sub` that created the endpoint's root: the pg-boss group of its jobs. */
  tenant: string;
  url: string;
  secret_ciphertext: string;
  secret_key_id: string;
  /** The secret a rotation replaced, while its grace lasts (contract section 22); else null. */
  previous_secret_ciphertext: string | null;
  previous_secret_key_id: string | null;
  event_id: string;
  body: string;
  trace_parent: string | null;
  /** Its `rateLimitPerSecond` (contract section 22), or null: no limit, no claim. */
  rate_limit_per_second: number | null;
}

/** A send claimed under the endpoint's rate limit: its row, and when the claim began (performance.now()). */
interface ClaimedSend {
  id: string;
  claimStartedMs: number;
}

const tracer = trace.getTracer('org-policy-service/webhooks');

/** Does what job `job` asks, if it is still due; throws only on a database error (pg-boss runs the job again). */
export async function attempt(context: AttemptContext, job: Job): Promise<void> {
  const { database } = context;
  const [row] = await database.query<DeliveryRow>(
    `select d.endpoint_id, ${TENANT_OF_ORGANIZATION} as tenant, w.disabled_reason, case when w.retry_at > now() then ${rfc3339('w.retry_at')} end as retry_at,
       d.status, d.attempts, d.requested, w.url, w.deleted_at is not null as deleted, w.secret_ciphertext, w.secret_key_id,
       case when w.previous_secret_until > now() then w.previous_secret_ciphertext end as previous_secret_ciphertext,
       case when w.previous_secret_until > now() then w.previous_secret_key_id end as previous_secret_key_id, e.id as event_id,
       d.created_at < now() - make_interval(secs => ?) as expired, e.trace_parent, w.rate_limit_per_second,
       ${EVENT_BODY} as body
     from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id join event e on e.id = d.event_id
       join organization o on o.id = w.organization_id
     where d.id = ?`,
    [context.settings.retryWindowSeconds, job.deliveryId],
  );
  const gate = beforeAttempt(row, job.attempt, context.fairness);
  switch (gate.action) {
    case 'skip':
      return;
    case 'drop':
      await database.query(`update webhook_delivery set status = 'failed', last_error = ? where id = ? and status = 'pending'`, [
        gate.reason,
        job.deliveryId,
      ]);
      context.metrics?.observeDelivery('dropped');
      return;
    case 'wait':
      await database.transaction(async (tx) => {
        await tx.query(`update webhook_delivery set next_attempt_at = greatest(next_attempt_at, ?) where id = ?`, [
          gate.until,
          job.deliveryId,
        ]);
        await context.boss.send(QUEUE, job, { startAfter: gate.until, db: tx, ...tenantGroup(gate.row.tenant, context.fairness) });
      });
      return;
    case 'attempt': {
      // An endpoint with a rate limit: a send is claimed first, or the job is put off to when it
      // may try again (delivery-rate-limit.ts). Without a limit, nothing more is asked of the database.
      if (gate.row.rate_limit_per_second === null) return attemptInSpan(context, job, gate.row, undefined);
      const claimStartedMs = performance.now();
      const claim = await claimSend(context, job, gate.row.endpoint_id, gate.row.tenant);
      if ('refused' in claim) return;
      return attemptInSpan(context, job, gate.row, claim.sendId === null ? undefined : { id: claim.sendId, claimStartedMs });
    }
  }
}

/**
 * A span per attempt, in the trace of the request that wrote the event (a retry days later
 * too): the receiver gets its `traceparent`. The host is recorded, never the URL, which can
 * carry a credential.
 */
async function attemptInSpan(context: AttemptContext, job: Job, delivery: DeliveryRow, send: ClaimedSend | undefined): Promise<void> {
  const parent = delivery.trace_parent ? propagation.extract(ROOT_CONTEXT, { traceparent: delivery.trace_parent }) : ROOT_CONTEXT;
  const attributes = {
    'webhook.delivery_id': job.deliveryId,
    'webhook.attempt': job.attempt,
    'webhook.event_id': delivery.event_id,
    'server.address': new URL(delivery.url).hostname,
  };
  await tracer.startActiveSpan('webhook delivery', { kind: SpanKind.CLIENT, attributes }, parent, async (span) => {
    try {
      // The new secret's signature first, then (during a rotation's grace) the old one's.
      const secrets = [
        { ciphertext: delivery.secret_ciphertext, keyId: delivery.secret_key_id },
        ...(delivery.previous_secret_ciphertext && delivery.previous_secret_key_id
          ? [{ ciphertext: delivery.previous_secret_ciphertext, keyId: delivery.previous_secret_key_id }]
          : []),
      ].map((sealed) => context.cipher.open(sealed, 'webhook_endpoint.secret'));
      const startedAt = new Date();
      const started = performance.now();
      // A claimed send ends within the time limit from its claim, as its window counts on
      // (send-window.ts): the POST gets what is left of it.
      const timeLimitMs = send ? context.settings.timeoutSeconds * 1000 - (performance.now() - send.claimStartedMs) : undefined;
      const outcome = await post(delivery.url, delivery.event_id, delivery.body, secrets, context.settings, context.agents, timeLimitMs);
      outcome.elapsedMs = Math.round(performance.now() - started);
      const failed = Boolean(outcome.error) || outcome.status === undefined || outcome.status >= 300;
      if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? `HTTP ${outcome.status}` });
      const result = await recordAttempt(context, job, delivery, outcome, startedAt, send?.id ?? null);
      context.metrics?.observeDelivery(result);
      // An operator's first clue (F9): which endpoint, where, which event, which attempt, why,
      // and whether another follows. The host only, never the URL (its path or query can hold a credential),
      // nor the receiver's answer (the attempt log keeps its first 4 KB).
      if (failed) {
        const { body: _body, ...told } = outcome;
        context.logger.warn(
          {
            endpointId: delivery.endpoint_id,
            host: new URL(delivery.url).host,
            eventId: delivery.event_id,
            deliveryId: job.deliveryId,
            attempt: job.attempt,
            ...told,
            result,
          },
          'webhook attempt failed',
        );
      }
    } finally {
      span.end();
    }
  });
}
