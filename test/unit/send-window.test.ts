import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideClaim, nextTry, occupiedUntil, paceSeconds, PACE_MARGIN, type Send } from '../../src/webhooks/send-window.js';

/**
 * An endpoint's rate limit without a database: the pure decisions of src/webhooks/send-window.ts,
 * held against the contract's words (section 22: "`rateLimitPerSecond` (1-1,000, optional):
 * deliveries to the endpoint never exceed it"), measured where a receiver measures them: the
 * simulation below plays claims, requests that arrive at the receiver at any moment between their
 * claim and their finish, finishes written late, workers that die, and jobs that come back late,
 * and counts the arrivals in every second. The real thing, two instances and a receiver:
 * test/e2e/webhook-rate-limit.test.ts.
 */

const BOUND = 2; // the attempt's time limit in these tests, seconds

const send = (id: string, claimedAt: number, finishedAt: number | null = null): Send => ({ id, claimedAt, finishedAt });

describe('decideClaim', () => {
  it('allows a send while fewer than the limit occupy the endpoint, and names the rows that no longer do', () => {
    const sends = [send('1', 10, 10.2), send('2', 10.5, 10.6), send('3', 7), send('4', 11)];
    // At 11.5: 1 ended 1.3 s ago (stale), 2 ended 0.9 s ago, 3 never finished but is past 7 + 2 + 1, 4 is under way.
    expect(decideClaim({ limit: 3, now: 11.5, sends, pacedUntil: null, lifeBoundSeconds: BOUND })).toEqual({
      allowed: true,
      stale: ['1', '3'],
    });
  });

  it('refuses at the limit; the job comes back when the first place can be free, and the line moves on by one pace', () => {
    const sends = [send('1', 10, 10.2), send('2', 10.5, 10.6)];
    const decision = decideClaim({ limit: 2, now: 10.8, sends, pacedUntil: null, lifeBoundSeconds: BOUND });
    expect(decision).toMatchObject({ allowed: false, stale: [], retryAt: 11.2 });
    // The longest life in the window is 0.2 s: two places free every 1.2 s.
    expect(decision.allowed === false && decision.pacedUntil).toBeCloseTo(11.2 + (1.2 / 2) * PACE_MARGIN, 9);
  });

  it('takes a send not finished yet as one that may finish now: its place frees 1 s from now at the earliest', () => {
    const decision = decideClaim({ limit: 1, now: 20, sends: [send('1', 19.5)], pacedUntil: null, lifeBoundSeconds: BOUND });
    expect(decision).toMatchObject({ allowed: false, retryAt: 21 });
  });

  it('puts a refused job behind those already waiting', () => {
    const decision = decideClaim({ limit: 1, now: 20, sends: [send('1', 19.5, 19.6)], pacedUntil: 30, lifeBoundSeconds: BOUND });
    expect(decision).toMatchObject({ allowed: false, retryAt: 30 });
    expect(decision.allowed === false && decision.pacedUntil).toBeCloseTo(30 + 1.1 * PACE_MARGIN, 9);
  });

  it('with the limit lowered below the sends in the window, waits until enough of them end', () => {
    const sends = [send('1', 10, 10.1), send('2', 10, 10.3), send('3', 10, 10.5), send('4', 10, 10.7)];
    expect(nextTry(sends, 2, 10.8, null).retryAt).toBeCloseTo(11.5, 9);
    expect(decideClaim({ limit: 2, now: 10.8, sends, pacedUntil: null, lifeBoundSeconds: BOUND })).toMatchObject({ allowed: false });
  });

  it('occupies from the claim to 1 s after the finish, or after the bound when no finish was written', () => {
    expect(occupiedUntil(send('1', 5, 5.5), BOUND)).toBe(6.5);
    expect(occupiedUntil(send('1', 5), BOUND)).toBe(8);
    expect(paceSeconds([send('1', 5, 5.5), send('2', 5.2)], 4, 6)).toBeCloseTo((1.8 / 4) * PACE_MARGIN, 9);
  });
});

/** One job of the simulation: when it first tries, and what its send will do once claimed. */
interface SimJob {
  at: number;
  /** From the claim to the answer (or the failure), seconds; at most BOUND (the POST is cut off then). */
  life: number;
  /** Where in [claim, answer] the request reaches the receiver, 0 to 1. */
  arrival: number;
  /** From the answer to the finish written in the database. */
  recordDelay: number;
  /** Its worker dies after the POST: no finish is ever written. */
  dies: boolean;
  /** How late the job comes back after each refusal (the slots poll). */
  lateness: number;
}

interface SimRow extends Send {
  recordedAt: number | null;
}

/**
 * Plays `jobs` against an endpoint limited to `limit` a second: every try is a claim decided by
 * decideClaim, one at a time (the endpoint's row lock). `line: false` ignores the waiting line
 * (each refused job comes back as soon as a place can be free), to show what the pacing saves.
 * Returns the receiver's arrival times, the refusals, and when the last send was claimed.
 */
function simulate(limit: number, jobs: readonly SimJob[], line = true) {
  const tries = jobs.map((job, index) => ({ time: job.at, index }));
  const rows: SimRow[] = [];
  const arrivals: number[] = [];
  let pacedUntil: number | null = null;
  let refusals = 0;
  let last = 0;
  for (let step = 0; tries.length > 0; step++) {
    if (step > 100 * jobs.length + 1000) throw new Error('the jobs never all got through');
    tries.sort((a, b) => a.time - b.time);
    const { time: now, index } = tries.shift()!;
    const job = jobs[index];
    // What the claim reads: the rows still there, with the finishes written by now.
    const sends = rows.map((row) => send(row.id, row.claimedAt, row.recordedAt !== null && row.recordedAt <= now ? row.recordedAt : null));
    const decision = decideClaim({ limit, now, sends, pacedUntil: line ? pacedUntil : null, lifeBoundSeconds: BOUND });
    for (const id of decision.stale)
      rows.splice(
        rows.findIndex((row) => row.id === id),
        1,
      );
    if (decision.allowed) {
      rows.push({ id: String(index), claimedAt: now, finishedAt: null, recordedAt: job.dies ? null : now + job.life + job.recordDelay });
      arrivals.push(now + job.arrival * job.life);
      last = now;
    } else {
      refusals++;
      expect(decision.retryAt).toBeGreaterThan(now);
      pacedUntil = decision.pacedUntil;
      tries.push({ time: decision.retryAt + job.lateness, index });
    }
  }
  return { arrivals, refusals, last };
}

/** The contract's words at the receiver: the most arrivals within any 1 s (a window [t, t + 1)). */
function mostInOneSecond(arrivals: readonly number[]): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, i = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[first] >= 1) first++;
    most = Math.max(most, i - first + 1);
  }
  return most;
}

const simJob = fc.record({
  at: fc.double({ min: 0, max: 3, noNaN: true }),
  life: fc.double({ min: 0, max: 1.5, noNaN: true }),
  arrival: fc.double({ min: 0, max: 1, noNaN: true }),
  recordDelay: fc.double({ min: 0, max: 0.3, noNaN: true }),
  dies: fc.boolean(),
  lateness: fc.double({ min: 0, max: 0.3, noNaN: true }),
});

describe('the limit at the receiver (simulated)', () => {
  it('never lets more than the limit arrive within one second, however the sends last, and every job gets through', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(simJob, { minLength: 1, maxLength: 60 }), (limit, jobs) => {
        // A dead worker's request may arrive at any time until it would have been cut off.
        const played = jobs.map((job) => (job.dies ? { ...job, life: BOUND } : job));
        const { arrivals } = simulate(limit, played);
        expect(arrivals).toHaveLength(jobs.length);
        expect(mostInOneSecond(arrivals)).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 300 },
    );
  });

  it('paces a backlog: 200 jobs at once at 5 a second are each refused about once, not every second', () => {
    // A seeded generator: the same lateness on every run.
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const jobs = Array.from({ length: 200 }, (_, i) => ({
      at: i * 0.005,
      life: 0.03,
      arrival: 0.5,
      recordDelay: 0.02,
      dies: false,
      lateness: random() * 0.1,
    }));
    const paced = simulate(5, jobs);
    expect(mostInOneSecond(paced.arrivals)).toBeLessThanOrEqual(5);
    // 195 refused on their first try (the burst), and few more.
    expect(paced.refusals).toBeLessThan(260);
    // Near the limit's own pace: (1 s + 0.05 s) / 5 per send, with the margin.
    expect(paced.last).toBeLessThan(200 * (1.05 / 5) * PACE_MARGIN * 1.15);
    // Without the line every waiting job comes back each time a place may free, and most are refused again.
    const crowd = simulate(5, jobs, false);
    expect(crowd.refusals).toBeGreaterThan(10 * paced.refusals);
  });
});
