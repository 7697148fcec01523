import type { WebhookSettings } from '../config.js';
import type { AttemptError } from './attempt-log.js';
import { isSlowSuccess } from './delivery-fairness.js';

/**
 * What becomes of a delivery, decided from its row and an attempt's outcome: pure functions, no
 * database, no clock, no randomness of their own (the jitter comes in). Apart from the SQL that
 * reads the row (delivery-attempt.ts) and writes the state (delivery-record.ts), so that the rules
 * of contract sections 11 and 12 can be unit-tested without a database
 * (test/unit/delivery-next-state.test.ts): a 2xx is delivered; anything else is retried with
 * exponential backoff and jitter, and failed after the last attempt or the retry window; an
 * endpoint that keeps failing is backed off as a whole and then disabled; a receiver that answers
 * `410 Gone` disables its endpoint at once (contract section 22).
 *
 * The endpoint's own back-off (its failure count, its jittered retry time, how long it has been
 * failing) stays in SQL, computed under its row's lock, so that attempts in flight at once on one
 * endpoint count as one round: what that statement answered comes in here as an `EndpointAfter`.
 */

/** An attempt's outcome: the receiver's status, or why there was none. */
export interface Outcome {
  status?: number;
  error?: string;
  /** The class of `error` for the attempt log (attempt-log.ts): null when it is none of them, absent without an error. */
  errorClass?: AttemptError | null;
  /** The answer's first 4 KB as text (attempt-log.ts); absent when no answer came. */
  body?: string;
  /** How long the attempt took, set by its caller: a slow success backs its endpoint off. */
  elapsedMs?: number;
}

/** What a delivery's row says before its attempt (the columns delivery-attempt.ts reads). */
export interface DeliveryGate {
  status: string;
  attempts: number;
  /** The endpoint was deleted. */
  deleted: boolean;
  /** The delivery is older than the retry window (made with its event, or later by a redelivery or a recovery). */
  expired: boolean;
  disabled_reason: string | null;
  /** RFC 3339 in UTC, or null: the endpoint is not backed off. */
  retry_at: string | null;
  /** A caller asked for it (a test event, a redelivery: contract section 22): its first attempt is not put off with the endpoint. */
  requested: boolean;
}

/** What a job does with its delivery before any POST. */
export type BeforeAttempt<Row> =
  { action: 'skip' } | { action: 'drop'; reason: string } | { action: 'wait'; until: Date; row: Row } | { action: 'attempt'; row: Row };

/** The gate of a job (`attempt`, 1-based) on its delivery's row (undefined: no such delivery). */
export function beforeAttempt<Row extends DeliveryGate>(row: Row | undefined, attempt: number, fairness: boolean): BeforeAttempt<Row> {
  // Delivered, failed, or already attempted (a duplicate of a job that ran): nothing to do.
  if (!row || row.status !== 'pending' || row.attempts !== attempt - 1) return { action: 'skip' };
  if (row.deleted) return { action: 'drop', reason: 'the endpoint was deleted' };
  if (row.disabled_reason !== null) return { action: 'drop', reason: 'the endpoint is disabled' };
  if (row.expired) return { action: 'drop', reason: 'no attempt succeeded within the retry window' };
  // The endpoint is backed off as a whole: this delivery waits with it, no attempt made; but the
  // first attempt of one a caller asked for is made now (it checks a receiver just fixed).
  if (fairness && row.retry_at && !(row.requested && attempt === 1)) return { action: 'wait', until: new Date(row.retry_at), row };
  return { action: 'attempt', row };
}

/** Why an endpoint whose receiver answered 410 is disabled (contract section 22: "An answer `410 Gone` disables the endpoint at once"). */
export const GONE_REASON = '410 Gone';

/** The receiver says the endpoint is gone for good (Standard Webhooks: "410 Gone = stop"). */
export function isGone(outcome: Outcome): boolean {
  return outcome.status === 410;
}

/**
 * A 2xx is delivered (contract section 11); any other status, or none, is not; nor is a 2xx whose
 * answer broke off or outlasted the time limit (an error after the status): it is sent again.
 */
export function isDelivered(outcome: Outcome): boolean {
  return outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300 && outcome.error === undefined;
}

/** What an attempt tells of its endpoint's health: a failure, a slow success (delivery-fairness.ts) or a fast one. */
export type Health = 'fast' | 'slow' | 'failed';

export function attemptHealth(outcome: Outcome): Health {
  return !isDelivered(outcome) ? 'failed' : isSlowSuccess(outcome.elapsedMs ?? 0) ? 'slow' : 'fast';
}

/** The endpoint's row once this attempt's health is written (delivery-record.ts); only with fairness. */
export interface EndpointAfter {
  /** Seconds until the endpoint's retry time (0: not backed off). */
  waitSeconds: number;
  /** It has failed, with no success since, for longer than the retry window. */
  failingPastWindow: boolean;
}

/** A delivery's state after an attempt: what delivery-record.ts writes. */
export interface NextState {
  result: 'delivered' | 'retrying' | 'failed';
  /** Seconds from now to the next attempt: written as next_attempt_at (whatever the result), and the next job's start. */
  delaySeconds: number;
  /** This attempt disables the endpoint, for this reason (its other pending deliveries fail with it): a 410, or the retry window. */
  disabledReason?: string;
  /** The attempt the next job makes, when one is due. */
  nextAttempt?: number;
}

export type RetrySettings = Pick<WebhookSettings, 'maxAttempts' | 'retryBaseSeconds' | 'retryWindowSeconds'>;

/**
 * The state after attempt `attempt` (1-based) with `outcome`; `endpoint` is undefined without
 * fairness, `jitter` is a number in [0, 1) (Math.random() in production).
 */
export function nextDeliveryState(
  attempt: number,
  outcome: Outcome,
  endpoint: EndpointAfter | undefined,
  jitter: number,
  settings: RetrySettings,
): NextState {
  const delivered = isDelivered(outcome);
  // A 410 disables the endpoint at once, with or without fairness. Otherwise, after failing for
  // the whole retry window, the endpoint is disabled and its pending deliveries failed: only a
  // failure does it (a slow success is still a success: it ends the failing time).
  const gone = isGone(outcome);
  const disables = gone || (endpoint !== undefined && attemptHealth(outcome) === 'failed' && endpoint.failingPastWindow);
  // A disabled endpoint's deliveries are failed, this one with this attempt's outcome.
  const last = attempt >= settings.maxAttempts || disables;
  const backoff = backoffSeconds(attempt, settings.retryBaseSeconds, jitter);
  // The next attempt waits for the endpoint too.
  const delaySeconds = endpoint === undefined ? backoff : Math.max(backoff, disables ? 0 : Math.ceil(endpoint.waitSeconds));
  const result = delivered ? 'delivered' : last ? 'failed' : 'retrying';
  return {
    result,
    delaySeconds,
    ...(disables ? { disabledReason: gone ? GONE_REASON : disabledReason(outcome, settings) } : {}),
    // Delivered or out of attempts: nothing more to schedule.
    ...(result === 'retrying' ? { nextAttempt: attempt + 1 } : {}),
  };
}

/** Why an endpoint was disabled (its `disabledReason`, at most 300 characters). */
function disabledReason(outcome: Outcome, settings: RetrySettings): string {
  const why = outcome.error ?? `HTTP ${outcome.status}`;
  return `no attempt succeeded for ${settings.retryWindowSeconds} s; the last one: ${why}`.slice(0, 300);
}

/** Exponential backoff with full jitter: between half and all of base × 2^(attempt − 1). */
export function backoffSeconds(attempt: number, baseSeconds: number, jitter = Math.random()): number {
  const ceiling = baseSeconds * 2 ** Math.min(attempt - 1, 16);
  return Math.round(ceiling / 2 + (jitter * ceiling) / 2);
}
