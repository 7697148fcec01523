import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { WebhookSettings } from '../config.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import type { Database, Transaction } from '../database/database.js';
import { untimed, type JobQueue } from '../jobs/job-queue.js';
import { rfc3339 } from '../database/read-model.js';
import { EVENT_BODY } from '../events/event.reads.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { traceHeaders } from '../observability/trace-context.js';
import { isSlowSuccess, slotShares, TENANT_OF_ORGANIZATION, tenantGroup } from './delivery-fairness.js';
import { checkedLookup, literalUrlProblem } from './webhook-url.js';

/**
 * Webhook delivery (spec section 11) on pg-boss, a PostgreSQL job queue: each attempt is a job,
 * claimed by exactly one worker of any instance (SKIP LOCKED); a job whose worker died expires
 * and pg-boss runs it again. The schedule is ours, so that the next attempt is known and shown:
 * an attempt's outcome, and the job of the next attempt (exponential backoff with jitter), are
 * written in one transaction, through pg-boss's `db` option. Deliveries the create's trigger
 * made are handed to pg-boss by a relay, in the same way: marked and enqueued together.
 *
 * Fair between tenants (contract section 12; docs/decisions.md): each job is processed on its own
 * (WEBHOOK_CONCURRENCY at once per instance), in a pg-boss group named after the endpoint's
 * tenant; how the slots are shared is delivery-fairness.ts. A failed attempt, or a slow success,
 * backs its whole endpoint off (`webhook_endpoint.retry_at`): its other deliveries' jobs are put
 * off to that time without an attempt, and new ones are enqueued for it. An endpoint failing for
 * the whole retry window is disabled.
 *
 * Two pools: the worker's own SQL goes through the service's gateway (database/database.ts), and
 * the process's job queue (jobs/job-queue.ts, shared with the billing sweep) keeps pg-boss's pool
 * for its polling and maintenance (docs/decisions.md, "One pool, one gateway"); the jobs a
 * transaction of ours enqueues go on our connection, through pg-boss's `db` option.
 */
const QUEUE = 'webhook-delivery';
/** At most this much of a receiver's answer is read (64 KB; contract section 12). */
export const RESPONSE_READ_LIMIT = 64 * 1024;

interface Job {
  deliveryId: string;
  /** The attempt this job makes (1-based): a stale duplicate finds the count moved on. */
  attempt: number;
}

interface DeliveryRow {
  endpoint_id: string;
  /** The `sub` that created the endpoint's root: the pg-boss group of its jobs. */
  tenant: string;
  disabled_reason: string | null;
  /** RFC 3339 in UTC, or null: the endpoint is not backed off. */
  retry_at: string | null;
  status: string;
  attempts: number;
  url: string;
  deleted: boolean;
  secret_ciphertext: string;
  secret_key_id: string;
  event_id: string;
  expired: boolean;
  body: string;
  trace_parent: string | null;
}

export interface DeliveryOptions {
  /** The service's gateway: the relay's, the attempts' and the retention's SQL. */
  database: Database;
  /** The process's job queue (jobs/job-queue.ts), started with deliverySuperviseSeconds; its owner stops it after the workers. */
  jobs: JobQueue;
  settings: WebhookSettings;
  cipher: FieldCipher;
  logger: Logger;
  /** How often the relay looks for new deliveries, and workers for due jobs (tests shorten it). */
  pollSeconds?: number;
  /** Attempts by result and the queue's depth (spec section 13). */
  metrics?: ServiceMetrics;
  /**
   * Fair shares between tenants: the per-tenant cap on attempts in flight, the reserved slots and
   * the back-off of an endpoint as a whole (default true). Only tests turn it off, to show what
   * it prevents.
   */
  fairness?: boolean;
}

const tracer = trace.getTracer('org-policy-service/webhooks');

export interface DeliveryWorkers {
  stop(): Promise<void>;
}

/**
 * How often the job queue that delivery runs on looks for expired jobs: an attempt lasts at most
 * the timeout, and a job active well past it lost its worker (pg-boss 10's maintenance interval).
 */
export function deliverySuperviseSeconds(settings: WebhookSettings): number {
  return Math.max(5, settings.timeoutSeconds * 2);
}

/** Starts the relay, the workers and the retention job on this instance. */
export async function startDelivery(options: DeliveryOptions): Promise<DeliveryWorkers> {
  const { settings, logger, metrics } = options;
  const pollSeconds = options.pollSeconds ?? 1;
  const fairness = options.fairness ?? true;
  // The tenant's share: its jobs count against one pg-boss group (none without fairness).
  const groupOf = (tenant: string) => tenantGroup(tenant, fairness);
  const { database } = options;
  metrics?.watchQueueDepth(async () => {
    const [{ count }] = await database.query<{ count: number }>(
      `select count(*)::int as count from webhook_delivery where status = 'pending'`,
    );
    return count;
  });
  const { boss } = options.jobs;
  await options.jobs.createQueue(QUEUE, {
    // pg-boss's own retries only cover a worker that died mid-attempt (the job expired).
    retryLimit: 5,
    retryDelay: 5,
    expireInSeconds: settings.timeoutSeconds + 20,
    // A job not started a day after its start time is deleted (pg-boss 10's retentionDays: 1).
    retentionSeconds: 24 * 60 * 60,
  });
  // Connections are kept open between attempts to the same host (a new TCP and TLS handshake per
  // event cost more than the event); a kept connection was checked by the lookup when it opened.
  const agents: Agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: settings.concurrency, timeout: 30_000 }),
    https: new https.Agent({ keepAlive: true, maxSockets: settings.concurrency, timeout: 30_000 }),
  };

  /**
   * Hands unqueued deliveries to the queue: marked and enqueued in one transaction, by one
   * instance. A new delivery gets its first attempt now. A delivery re-enqueued after the queue
   * was rebuilt (Migration20261125000000_pgboss_12: pg-boss 12 cannot migrate pg-boss 10's
   * schema) may have made attempts already: it gets the next one (attempt() skips any other),
   * not before the time its row shows, so the back-off schedule the API shows is kept. A
   * delivery to an endpoint that is backed off waits with it.
   */
  const relay = () =>
    database.transaction(async (tx) => {
      const rows = await tx.query<{ id: string; attempts: number; start_after: string | null; tenant: string }>(
        `select d.id, d.attempts, ${TENANT_OF_ORGANIZATION} as tenant,
           case when greatest(d.next_attempt_at, ${fairness ? 'w.retry_at' : 'null'}) > now()
             then ${rfc3339(`greatest(d.next_attempt_at, ${fairness ? 'w.retry_at' : 'null'})`)} end as start_after
         from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id join organization o on o.id = w.organization_id
         where not d.enqueued order by d.created_at limit 200 for update of d skip locked`,
      );
      if (rows.length > 0) {
        const jobs = rows.map((row) => ({
          data: { deliveryId: row.id, attempt: row.attempts + 1 } satisfies Job,
          ...(row.start_after ? { startAfter: new Date(row.start_after) } : {}),
          ...groupOf(row.tenant),
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

  const attempt = async (job: Job) => {
    const [delivery] = await database.query<DeliveryRow>(
      `select d.endpoint_id, ${TENANT_OF_ORGANIZATION} as tenant, w.disabled_reason, case when w.retry_at > now() then ${rfc3339('w.retry_at')} end as retry_at,
         d.status, d.attempts, w.url, w.deleted_at is not null as deleted, w.secret_ciphertext, w.secret_key_id, e.id as event_id,
         e.created_at < now() - make_interval(secs => ?) as expired, e.trace_parent,
         ${EVENT_BODY} as body
       from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id join event e on e.id = d.event_id
         join organization o on o.id = w.organization_id
       where d.id = ?`,
      [settings.retryWindowSeconds, job.deliveryId],
    );
    // Delivered, failed, or already attempted (a duplicate of a job that ran): nothing to do.
    if (!delivery || delivery.status !== 'pending' || delivery.attempts !== job.attempt - 1) return;
    if (delivery.deleted || delivery.expired || delivery.disabled_reason !== null) {
      await database.query(`update webhook_delivery set status = 'failed', last_error = ? where id = ? and status = 'pending'`, [
        delivery.deleted
          ? 'the endpoint was deleted'
          : delivery.disabled_reason !== null
            ? 'the endpoint is disabled'
            : 'no attempt succeeded within the retry window',
        job.deliveryId,
      ]);
      metrics?.observeDelivery('dropped');
      return;
    }
    // The endpoint is backed off as a whole: this delivery waits with it, no attempt made.
    if (fairness && delivery.retry_at) {
      const retryAt = new Date(delivery.retry_at);
      await database.transaction(async (tx) => {
        await tx.query(`update webhook_delivery set next_attempt_at = greatest(next_attempt_at, ?) where id = ?`, [
          retryAt,
          job.deliveryId,
        ]);
        await boss.send(QUEUE, job, { startAfter: retryAt, db: tx, ...groupOf(delivery.tenant) });
      });
      return;
    }
    // A span per attempt, in the trace of the request that wrote the event (a retry days later
    // too): the receiver gets its `traceparent`. The host is recorded, never the URL, which can
    // carry a credential.
    const parent = delivery.trace_parent ? propagation.extract(ROOT_CONTEXT, { traceparent: delivery.trace_parent }) : ROOT_CONTEXT;
    const attributes = {
      'webhook.delivery_id': job.deliveryId,
      'webhook.attempt': job.attempt,
      'webhook.event_id': delivery.event_id,
      'server.address': new URL(delivery.url).hostname,
    };
    await tracer.startActiveSpan('webhook delivery', { kind: SpanKind.CLIENT, attributes }, parent, async (span) => {
      try {
        const secret = options.cipher.open(
          { ciphertext: delivery.secret_ciphertext, keyId: delivery.secret_key_id },
          'webhook_endpoint.secret',
        );
        const started = performance.now();
        const outcome = await post(delivery.url, delivery.event_id, delivery.body, secret, settings, agents);
        outcome.elapsedMs = Math.round(performance.now() - started);
        const failed = Boolean(outcome.error) || outcome.status === undefined || outcome.status >= 300;
        if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? `HTTP ${outcome.status}` });
        const result = await record(job, delivery, outcome);
        metrics?.observeDelivery(result);
        // An operator's first clue (F9): which endpoint, where, which event, which attempt, why,
        // and whether another follows. The host only, never the URL (its path or query can hold a credential).
        if (failed) {
          logger.warn(
            {
              endpointId: delivery.endpoint_id,
              host: new URL(delivery.url).host,
              eventId: delivery.event_id,
              deliveryId: job.deliveryId,
              attempt: job.attempt,
              ...outcome,
              result,
            },
            'webhook attempt failed',
          );
        }
      } finally {
        span.end();
      }
    });
  };

  /** The attempt's outcome, its endpoint's health, and the next attempt's job when one is due, in one transaction. */
  const record = (job: Job, delivery: DeliveryRow, outcome: Outcome): Promise<'delivered' | 'failed' | 'retrying'> =>
    // With the endpoint's health in the same transaction: no reader sees the endpoint disabled
    // (its other deliveries failed) while this one still reads pending.
    database.transaction(async (tx) => {
      const delivered = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
      let last = job.attempt >= settings.maxAttempts;
      let delaySeconds = backoffSeconds(job.attempt, settings.retryBaseSeconds);
      if (fairness) {
        const health = !delivered ? 'failed' : isSlowSuccess(outcome.elapsedMs ?? 0) ? 'slow' : 'fast';
        const endpoint = await endpointOutcome(tx, delivery.endpoint_id, job.deliveryId, health, outcome);
        // A disabled endpoint's deliveries are failed, this one with this attempt's outcome.
        last ||= endpoint.disabled;
        // The next attempt waits for the endpoint too.
        delaySeconds = Math.max(delaySeconds, endpoint.waitSeconds);
      }
      // The attempt's outcome, on the row that still waits for this attempt (one row, or none).
      const updated = await tx.query(
        `update webhook_delivery set attempts = ?, last_status = ?, last_error = ?, last_attempt_at = now(),
           status = case when ? then 'delivered' when ? then 'failed' else 'pending' end,
           delivered_at = case when ? then now() end,
           next_attempt_at = now() + make_interval(secs => ?)
         where id = ? and attempts = ? - 1 and status = 'pending'
         returning 1`,
        [job.attempt, outcome.status ?? null, outcome.error ?? null, delivered, last, delivered, delaySeconds, job.deliveryId, job.attempt],
      );
      // Delivered or out of attempts: nothing more to schedule.
      if (delivered || last) return delivered ? 'delivered' : 'failed';
      if (updated.length === 1) {
        await boss.send(QUEUE, { deliveryId: job.deliveryId, attempt: job.attempt + 1 } satisfies Job, {
          startAfter: delaySeconds,
          db: tx,
          ...groupOf(delivery.tenant),
        });
      }
      return 'retrying';
    });

  /**
   * An endpoint's health after an attempt. A fast success clears its failures; a failure, or a
   * slow success (delivery-fairness.ts), backs the whole endpoint off (once per round: attempts
   * already in flight when it failed do not push it further). A slow success is still a success:
   * it ends the failing time that disables an endpoint (it delivers). After failing for the whole
   * retry window, the endpoint is disabled and its pending deliveries failed. Returns how long
   * the endpoint now waits.
   */
  const endpointOutcome = async (
    tx: Transaction,
    endpointId: string,
    deliveryId: string,
    health: 'fast' | 'slow' | 'failed',
    outcome: Outcome,
  ): Promise<{ waitSeconds: number; disabled: boolean }> => {
    if (health === 'fast') {
      await tx.query('update webhook_endpoint set failures = 0, failing_since = null, retry_at = null where id = ? and failures > 0', [
        endpointId,
      ]);
      return { waitSeconds: 0, disabled: false };
    }
    const why = outcome.error ?? `HTTP ${outcome.status}`;
    const failed = health === 'failed';
    const rows = await tx.query<{ wait: number; expired: boolean }>(
      `update webhook_endpoint set
           failures = case when retry_at > now() then failures else failures + 1 end,
           failing_since = case when ? then coalesce(failing_since, now()) end,
           retry_at = case when retry_at > now() then retry_at
             else now() + make_interval(secs => ? * power(2, least(failures, 16)) * (0.5 + random() / 2)) end
         where id = ?
         returning extract(epoch from retry_at - now())::float8 as wait, failing_since < now() - make_interval(secs => ?) as expired`,
      [failed, settings.retryBaseSeconds, endpointId, settings.retryWindowSeconds],
    );
    if (!failed || !rows[0]?.expired) return { waitSeconds: Math.ceil(rows[0]?.wait ?? 0), disabled: false };
    const reason = `no attempt succeeded for ${settings.retryWindowSeconds} s; the last one: ${why}`.slice(0, 300);
    await tx.query(
      `update webhook_endpoint set disabled_at = now(), disabled_reason = ?, retry_at = null where id = ? and disabled_at is null`,
      [reason, endpointId],
    );
    await tx.query(
      `update webhook_delivery set status = 'failed', last_error = 'the endpoint is disabled' where endpoint_id = ? and status = 'pending' and id <> ?`,
      [endpointId, deliveryId],
    );
    logger.warn({ endpointId, reason }, 'webhook endpoint disabled');
    return { waitSeconds: 0, disabled: true };
  };

  // Each job on its own: WEBHOOK_CONCURRENCY slots, each fetching one job, attempting it and
  // fetching the next at once (waiting only when the queue had nothing), so a slow or dead receiver
  // holds one slot, never a batch. (pg-boss's `work` waits out its polling interval after every
  // batch: with batches of one that capped an instance at one job per slot a second.) With
  // fairness, each fetch is a general or a reserved one (delivery-fairness.ts): no tenant has more
  // than WEBHOOK_IN_FLIGHT_PER_TENANT active jobs from general fetches (counted in pg-boss's table,
  // across instances), and the reserved slots serve only tenants with nothing in flight. A job
  // that throws (a database error, not a failed attempt: those are recorded) is failed and run
  // again by pg-boss, as is one whose instance died (it expires); an attempt already recorded is
  // skipped then.
  let stopped = false;
  const shares = slotShares(settings, fairness);
  const slot = async () => {
    while (!stopped) {
      const claim = shares.claim();
      const [job] = await boss.fetch<Job>(QUEUE, claim.fetchOptions).catch((error) => {
        logger.warn({ err: error }, 'webhook job fetch failed; retrying');
        return [];
      });
      if (!job) {
        claim.release();
        await new Promise((resolve) => setTimeout(resolve, pollSeconds * 1000));
        continue;
      }
      try {
        await attempt(job.data);
        await boss.complete(QUEUE, job);
      } catch (error) {
        logger.warn({ err: error, deliveryId: job.data.deliveryId }, 'webhook job failed; pg-boss retries it');
        await boss.fail(QUEUE, job, { message: String((error as Error)?.message ?? error) }).catch(() => undefined);
      } finally {
        claim.release();
      }
    }
  };
  const slots = Array.from({ length: settings.concurrency }, slot);

  const relayLoop = async () => {
    while (!stopped) {
      const moved = await relay().catch((error) => {
        logger.warn({ err: error }, 'webhook relay failed; retrying');
        return 0;
      });
      // A full batch: more may be waiting.
      if (moved < 200) await new Promise((resolve) => setTimeout(resolve, pollSeconds * 1000));
    }
  };
  const relaying = relayLoop();

  const purge = () =>
    untimed(database, (tx) =>
      tx.query<{ count: number }>(
        `with gone as (delete from event where created_at < now() - make_interval(secs => ?) returning seq),
           cleared as (delete from event_ancestor a using gone where a.event_seq = gone.seq)
         select count(*)::int as count from gone`,
        [settings.retentionSeconds],
      ),
    )
      .then(([{ count }]) => count > 0 && logger.info({ count }, 'deleted events past their retention'))
      .catch((error) => logger.warn({ err: error }, 'could not delete old events'));
  void purge();
  const purger = setInterval(() => void purge(), 10 * 60_000).unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(purger);
      await relaying;
      // Each slot ends after its attempt (at most the attempt's timeout).
      await Promise.all(slots);
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Exponential backoff with full jitter: between half and all of base × 2^(attempt − 1). */
export function backoffSeconds(attempt: number, baseSeconds: number): number {
  const ceiling = baseSeconds * 2 ** Math.min(attempt - 1, 16);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

interface Agents {
  http: http.Agent;
  https: https.Agent;
}

interface Outcome {
  status?: number;
  error?: string;
  /** How long the attempt took, set by its caller: a slow success backs its endpoint off. */
  elapsedMs?: number;
}

/**
 * One POST, signed as Standard Webhooks asks; no redirects followed (node's http never does),
 * a time limit, and in production a connection only to a public address (the lookup refuses
 * others; an address literal is checked here, since it skips the lookup).
 */
function post(url: string, eventId: string, body: string, secret: string, settings: WebhookSettings, agents: Agents): Promise<Outcome> {
  const target = new URL(url);
  const policy = { publicOnly: settings.publicUrlsOnly };
  const problem = literalUrlProblem(target, policy);
  if (problem) return Promise.resolve({ error: `the URL ${problem}` });
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(eventId, timestamp, body);
  const send = target.protocol === 'https:' ? https.request : http.request;
  const agent = target.protocol === 'https:' ? agents.https : agents.http;
  return new Promise((resolve) => {
    const request = send(
      target,
      {
        method: 'POST',
        agent,
        lookup: checkedLookup(policy),
        timeout: settings.timeoutSeconds * 1000,
        headers: {
          // The delivery span's W3C trace context, when tracing is on (spec section 13).
          ...traceHeaders(),
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'org-policy-service-webhooks',
          'webhook-id': eventId,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
      },
      (response) => {
        // The status decides the attempt; the body is read (and dropped) only up to
        // RESPONSE_READ_LIMIT, then the connection is closed rather than drained: a receiver
        // cannot make the service read an unbounded answer (security review 2, L9).
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_READ_LIMIT) {
            resolve({ status: response.statusCode });
            request.destroy();
          }
        });
        response.on('end', () => resolve({ status: response.statusCode }));
        response.on('error', (error) => resolve({ status: response.statusCode, error: error.message }));
      },
    );
    // A whole-attempt limit: the socket timeout alone restarts with every byte received.
    const deadline = setTimeout(
      () => request.destroy(new Error(`no answer within ${settings.timeoutSeconds} s`)),
      settings.timeoutSeconds * 1000,
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${settings.timeoutSeconds} s`)));
    request.on('error', (error) => resolve({ error: error.message.slice(0, 200) }));
    request.on('close', () => clearTimeout(deadline));
    request.end(body);
  });
}
