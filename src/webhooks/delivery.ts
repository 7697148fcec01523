import type { Logger } from 'pino';
import type { WebhookSettings } from '../config.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import type { Database } from '../database/database.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { attempt, type AttemptContext } from './delivery-attempt.js';
import { slotShares } from './delivery-fairness.js';
import { QUEUE } from './delivery-job.js';
import { deliveryAgents } from './delivery-post.js';
import { relayLoop } from './delivery-relay.js';
import { slot } from './delivery-slots.js';
import { startEventRetention } from './event-retention.js';

// Kept for the modules that import them from here.
export { backoffSeconds } from './delivery-next-state.js';
export { RESPONSE_READ_LIMIT } from './delivery-post.js';

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
 * the whole retry window is disabled. An endpoint's `rateLimitPerSecond` is kept across instances
 * (delivery-rate-limit.ts): a job over it is put off, as for the back-off, and never holds a slot.
 *
 * Two pools: the worker's own SQL goes through the service's gateway (database/database.ts), and
 * the process's job queue (jobs/job-queue.ts, shared with the billing sweep) keeps pg-boss's pool
 * for its polling and maintenance (docs/decisions.md, "One pool, one gateway"); the jobs a
 * transaction of ours enqueues go on our connection, through pg-boss's `db` option.
 *
 * This file only wires the parts together, each in a file of its own: the relay
 * (delivery-relay.ts), the slots that fetch jobs (delivery-slots.ts), one job's attempt
 * (delivery-attempt.ts), the pure decision of a delivery's next state (delivery-next-state.ts)
 * and the SQL that writes it (delivery-record.ts), the rate limit's claims (delivery-rate-limit.ts,
 * deciding in send-window.ts), the signed POST (delivery-post.ts), and event retention
 * (event-retention.ts).
 */

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
  const { database, settings, logger, metrics } = options;
  const pollSeconds = options.pollSeconds ?? 1;
  // The tenant's share: each job counts against its tenant's pg-boss group (none without fairness).
  const fairness = options.fairness ?? true;
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
  const agents = deliveryAgents(settings);
  const context: AttemptContext = { database, boss, settings, logger, fairness, cipher: options.cipher, metrics, agents };

  let stopped = false;
  const isStopped = () => stopped;
  const shares = slotShares(settings, fairness);
  const slots = Array.from({ length: settings.concurrency }, () =>
    slot({ boss, logger, shares, pollSeconds, attempt: (job) => attempt(context, job), stopped: isStopped }),
  );
  const relaying = relayLoop(context, pollSeconds, isStopped);
  const stopRetention = startEventRetention(database, settings, logger);

  return {
    async stop() {
      stopped = true;
      stopRetention();
      await relaying;
      // Each slot ends after its attempt (at most the attempt's timeout).
      await Promise.all(slots);
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
