import { describe, expect, it } from 'vitest';
import {
  attemptHealth,
  backoffSeconds,
  beforeAttempt,
  nextDeliveryState,
  type DeliveryGate,
  type EndpointAfter,
  type Outcome,
} from '../../src/webhooks/delivery-next-state.js';

/**
 * A delivery's next state, without a database: the pure decision of src/webhooks/delivery-next-state.ts
 * held against a small model written from the contract's words (the behaviour with real receivers
 * and a real queue: test/e2e/webhooks.test.ts, webhook-recovery.test.ts, webhook-fairness.test.ts).
 *
 * Section 11: "A 2xx within 10 s is delivered; anything else (status, timeout, refused
 * connection) is retried with exponential backoff and jitter for up to 3 days, then marked
 * failed." Section 12: "a receiver that answers slowly even when it succeeds is backed off like a
 * failing one; an endpoint that keeps failing is backed off as a whole (its pending deliveries
 * wait with it) and `disabled` after the retry window, with `disabledReason`". The settings add
 * WEBHOOK_MAX_ATTEMPTS and WEBHOOK_RETRY_BASE_SECONDS (the backoff's first step: between half and
 * all of base × 2^(attempt − 1)).
 */

const settings = { maxAttempts: 13, retryBaseSeconds: 60, retryWindowSeconds: 3 * 24 * 3600 };

const OUTCOMES: Outcome[] = [
  { status: 200, elapsedMs: 40 },
  { status: 204, elapsedMs: 900 },
  { status: 299, elapsedMs: 5_000 },
  { status: 200, elapsedMs: 5_001 },
  { status: 202, elapsedMs: 9_800 },
  { status: 199, elapsedMs: 10 },
  { status: 301, elapsedMs: 10 },
  { status: 404, elapsedMs: 10 },
  { status: 410, elapsedMs: 10 },
  { status: 500, elapsedMs: 10 },
  { status: 503, elapsedMs: 7_000 },
  { error: 'no answer within 10 s', elapsedMs: 10_000 },
  { error: 'connect ECONNREFUSED 127.0.0.1:9', elapsedMs: 2 },
  { error: 'the URL is a private address' },
];

// Without fairness (tests only) there is no endpoint state; with it, what the endpoint's row said.
const ENDPOINTS: Array<EndpointAfter | undefined> = [
  undefined,
  { waitSeconds: 0, failingPastWindow: false },
  { waitSeconds: 12.2, failingPastWindow: false },
  { waitSeconds: 50_000, failingPastWindow: false },
  { waitSeconds: 30, failingPastWindow: true },
];

const JITTERS = [0, 0.25, 0.5, 0.999999];

/** The contract's words as a model: the result, the bounds of the delay, whether the endpoint is disabled. */
function model(attempt: number, outcome: Outcome, endpoint: EndpointAfter | undefined) {
  const twoHundreds = outcome.status !== undefined && outcome.status >= 200 && outcome.status <= 299;
  // Section 22: "An answer `410 Gone` disables the endpoint at once", with or without the endpoint's state.
  const gone = outcome.status === 410;
  // "an endpoint that keeps failing is ... disabled after the retry window": a failure only.
  const disabled = gone || (endpoint !== undefined && !twoHundreds && endpoint.failingPastWindow);
  const outOfAttempts = attempt >= settings.maxAttempts;
  const result = twoHundreds ? 'delivered' : outOfAttempts || disabled ? 'failed' : 'retrying';
  // "exponential backoff and jitter": between half and all of base × 2^(attempt − 1).
  const step = settings.retryBaseSeconds * 2 ** Math.min(attempt - 1, 16);
  // "its pending deliveries wait with it": never before the endpoint's own retry time (whole seconds).
  const endpointWait = endpoint && !disabled ? Math.ceil(endpoint.waitSeconds) : 0;
  return {
    result,
    least: Math.max(Math.round(step / 2), endpointWait),
    most: Math.max(step, endpointWait),
    disabled,
  };
}

describe('a delivery after an attempt', () => {
  it('follows the contract for every outcome, attempt, endpoint state and jitter', () => {
    let cases = 0;
    for (let attempt = 1; attempt <= settings.maxAttempts + 1; attempt++) {
      for (const outcome of OUTCOMES) {
        for (const endpoint of ENDPOINTS) {
          for (const jitter of JITTERS) {
            const expected = model(attempt, outcome, endpoint);
            const next = nextDeliveryState(attempt, outcome, endpoint, jitter, settings);
            const where = JSON.stringify({ attempt, outcome, endpoint, jitter });
            expect(next.result, where).toBe(expected.result);
            expect(next.delaySeconds, where).toBeGreaterThanOrEqual(expected.least);
            expect(next.delaySeconds, where).toBeLessThanOrEqual(expected.most);
            expect(Number.isInteger(next.delaySeconds), where).toBe(true);
            expect(next.disabledReason !== undefined, where).toBe(expected.disabled);
            // Another attempt is scheduled exactly when the delivery is retried, and it is the next one.
            expect(next.nextAttempt, where).toBe(expected.result === 'retrying' ? attempt + 1 : undefined);
            cases++;
          }
        }
      }
    }
    expect(cases).toBe(14 * OUTCOMES.length * ENDPOINTS.length * JITTERS.length);
  });

  it('spreads the retries by jitter: no jitter waits half the step, the most nearly all of it', () => {
    expect(nextDeliveryState(1, { status: 500 }, undefined, 0, settings).delaySeconds).toBe(30);
    expect(nextDeliveryState(1, { status: 500 }, undefined, 0.999999, settings).delaySeconds).toBe(60);
    expect(nextDeliveryState(4, { status: 500 }, undefined, 0.5, settings).delaySeconds).toBe(360);
    // The exponent stops growing at 16.
    expect(backoffSeconds(40, 1, 0.999999)).toBe(backoffSeconds(17, 1, 0.999999));
    expect(backoffSeconds(17, 1, 0)).toBe(2 ** 15);
  });

  it('the retries of the default settings end within the 3-day retry window', () => {
    const longest = Array.from({ length: settings.maxAttempts - 1 }, (_, index) => index + 1)
      .map((attempt) => nextDeliveryState(attempt, { status: 503 }, undefined, 0.999999, settings).delaySeconds)
      .reduce((sum, seconds) => sum + seconds, 0);
    expect(longest).toBeLessThanOrEqual(settings.retryWindowSeconds);
  });

  it('disables an endpoint that failed for the whole window with why, in at most 300 characters', () => {
    const endpoint = { waitSeconds: 30, failingPastWindow: true };
    const refused = nextDeliveryState(2, { error: 'connect ECONNREFUSED 127.0.0.1:9' }, endpoint, 0.5, settings);
    expect(refused).toMatchObject({
      result: 'failed',
      disabledReason: 'no attempt succeeded for 259200 s; the last one: connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(nextDeliveryState(2, { status: 502 }, endpoint, 0.5, settings).disabledReason).toBe(
      'no attempt succeeded for 259200 s; the last one: HTTP 502',
    );
    expect(nextDeliveryState(2, { error: 'x'.repeat(1000) }, endpoint, 0.5, settings).disabledReason).toHaveLength(300);
    // A success ends the failing time: delivered, the endpoint kept.
    expect(nextDeliveryState(2, { status: 200, elapsedMs: 6_000 }, endpoint, 0.5, settings)).toEqual({
      result: 'delivered',
      delaySeconds: 90,
    });
  });

  it('disables the endpoint at its first 410 Gone, whatever its state and the attempt: the delivery failed, no retry', () => {
    for (const endpoint of ENDPOINTS) {
      for (const attempt of [1, 5, settings.maxAttempts]) {
        const next = nextDeliveryState(attempt, { status: 410, elapsedMs: 10 }, endpoint, 0.5, settings);
        expect(next, JSON.stringify({ endpoint, attempt })).toMatchObject({ result: 'failed', disabledReason: '410 Gone' });
        expect(next.nextAttempt).toBeUndefined();
      }
    }
    // Any other 4xx is retried as before; a 410 is a failure for the endpoint's health too.
    expect(nextDeliveryState(1, { status: 404 }, { waitSeconds: 0, failingPastWindow: false }, 0.5, settings)).toMatchObject({
      result: 'retrying',
      nextAttempt: 2,
    });
    expect(nextDeliveryState(1, { status: 404 }, undefined, 0.5, settings).disabledReason).toBeUndefined();
    expect(attemptHealth({ status: 410, elapsedMs: 10 })).toBe('failed');
  });

  it('backs an endpoint off for a failure or a slow success, not a fast one', () => {
    expect(attemptHealth({ status: 200, elapsedMs: 5_000 })).toBe('fast');
    expect(attemptHealth({ status: 200, elapsedMs: 5_001 })).toBe('slow');
    expect(attemptHealth({ status: 200 })).toBe('fast');
    expect(attemptHealth({ status: 302, elapsedMs: 10 })).toBe('failed');
    expect(attemptHealth({ error: 'socket hang up' })).toBe('failed');
    // A 2xx whose answer then broke off or timed out is not delivered: sent again.
    expect(attemptHealth({ status: 200, error: 'aborted', errorClass: 'connection_reset', body: '' })).toBe('failed');
    expect(attemptHealth({ status: 204, error: 'no answer within 10 s', errorClass: 'timeout', body: 'par' })).toBe('failed');
  });
});

describe('a delivery before its attempt', () => {
  const pending: DeliveryGate = {
    status: 'pending',
    attempts: 2,
    deleted: false,
    expired: false,
    disabled_reason: null,
    retry_at: null,
    requested: false,
  };

  it('is attempted when pending and this job makes its next attempt', () => {
    expect(beforeAttempt(pending, 3, true)).toEqual({ action: 'attempt', row: pending });
  });

  it('is skipped when gone, no longer pending, or already attempted (a duplicate job)', () => {
    expect(beforeAttempt(undefined, 1, true)).toEqual({ action: 'skip' });
    expect(beforeAttempt({ ...pending, status: 'delivered' }, 3, true)).toEqual({ action: 'skip' });
    expect(beforeAttempt({ ...pending, status: 'failed' }, 3, true)).toEqual({ action: 'skip' });
    expect(beforeAttempt(pending, 2, true)).toEqual({ action: 'skip' });
    expect(beforeAttempt(pending, 4, true)).toEqual({ action: 'skip' });
  });

  it('is failed without an attempt when its endpoint is deleted or disabled, or after the retry window', () => {
    expect(beforeAttempt({ ...pending, deleted: true, expired: true }, 3, true)).toEqual({
      action: 'drop',
      reason: 'the endpoint was deleted',
    });
    expect(beforeAttempt({ ...pending, disabled_reason: 'no attempt succeeded', expired: true }, 3, true)).toEqual({
      action: 'drop',
      reason: 'the endpoint is disabled',
    });
    expect(beforeAttempt({ ...pending, expired: true }, 3, false)).toEqual({
      action: 'drop',
      reason: 'no attempt succeeded within the retry window',
    });
  });

  it('waits with its backed-off endpoint (with fairness), no attempt made', () => {
    const backedOff = { ...pending, retry_at: '2026-11-28T07:00:00.000000Z' };
    expect(beforeAttempt(backedOff, 3, true)).toEqual({ action: 'wait', until: new Date('2026-11-28T07:00:00Z'), row: backedOff });
    expect(beforeAttempt(backedOff, 3, false)).toEqual({ action: 'attempt', row: backedOff });
  });

  it('is attempted at once, its endpoint backed off, when a caller asked for it (a test event, a redelivery), for its first attempt only', () => {
    const asked = { ...pending, attempts: 0, requested: true, retry_at: '2026-11-28T07:00:00.000000Z' };
    expect(beforeAttempt(asked, 1, true)).toEqual({ action: 'attempt', row: asked });
    const again = { ...asked, attempts: 1 };
    expect(beforeAttempt(again, 2, true)).toEqual({ action: 'wait', until: new Date('2026-11-28T07:00:00Z'), row: again });
  });
});
