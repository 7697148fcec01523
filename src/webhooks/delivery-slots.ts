import type { Logger } from 'pino';
import type { JobQueue } from '../jobs/job-queue.js';
import type { SlotClaim } from './delivery-fairness.js';
import { QUEUE, type Job } from './delivery-job.js';

/**
 * The worker slots that fetch delivery jobs and hand each to an attempt (delivery-attempt.ts).
 * Apart from the attempt: this is how jobs are taken from the queue and shared between tenants,
 * not what one job does.
 *
 * Each job on its own: WEBHOOK_CONCURRENCY slots, each fetching one job, attempting it and
 * fetching the next at once (waiting only when the queue had nothing), so a slow or dead receiver
 * holds one slot, never a batch. (pg-boss's `work` waits out its polling interval after every
 * batch: with batches of one that capped an instance at one job per slot a second.) With
 * fairness, each fetch is a general or a reserved one (delivery-fairness.ts): no tenant has more
 * than WEBHOOK_IN_FLIGHT_PER_TENANT active jobs from general fetches (counted in pg-boss's table,
 * across instances), and the reserved slots serve only tenants with nothing in flight. A job
 * that throws (a database error, not a failed attempt: those are recorded) is failed and run
 * again by pg-boss, as is one whose instance died (it expires); an attempt already recorded is
 * skipped then.
 */

export interface SlotContext {
  boss: JobQueue['boss'];
  logger: Logger;
  /** The instance's general and reserved shares (delivery-fairness.ts), one for all its slots. */
  shares: { claim(): SlotClaim };
  /** How long a slot waits when the queue had nothing. */
  pollSeconds: number;
  attempt: (job: Job) => Promise<void>;
  stopped: () => boolean;
}

/** One slot: fetches, attempts and completes one job after another until `stopped()`; ends after its attempt. */
export async function slot({ boss, logger, shares, pollSeconds, attempt, stopped }: SlotContext): Promise<void> {
  while (!stopped()) {
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
}
