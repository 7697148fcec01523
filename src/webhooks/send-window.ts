/**
 * An endpoint's rate limit (contract section 22: "`rateLimitPerSecond` (1-1,000, optional):
 * deliveries to the endpoint never exceed it"), decided without a database, a clock or
 * randomness: pure functions over the endpoint's sends as delivery-rate-limit.ts reads them (its
 * SQL serializes the claims and writes what is decided here), unit-tested against a simulation of
 * the receiver (test/unit/send-window.test.ts).
 *
 * The limit holds where it is measured, at the receiver, although the time from our claim to the
 * request's arrival varies (a busy machine, the network): a send *occupies* its endpoint from its
 * claim (just before the POST) until 1 s after it finished (its answer came, or it failed), and a
 * new send is allowed only while fewer than the limit occupy it. Each request arrives between its
 * claim and its finish, so if the limit + 1 arrived within one second, the last of them to be
 * claimed was claimed while each of the others was unfinished or finished less than 1 s before:
 * it would have been refused.
 */

/** The contract's "a second". */
export const WINDOW_SECONDS = 1;

/**
 * The pace between waiting jobs is the time a place takes to free, with this much more: a job
 * comes back a little late (the slots poll for due jobs), and one that finds no place yet is
 * refused again and goes to the back of the line.
 */
export const PACE_MARGIN = 1.1;

/** One send, as its row holds it: seconds since the epoch, by the database's clock. */
export interface Send {
  id: string;
  claimedAt: number;
  /** Null until its outcome is written (or forever, if its worker died). */
  finishedAt: number | null;
}

/**
 * Until when a send occupies its endpoint: 1 s after its finish. One not finished yet may still be
 * under way: it occupies until 1 s after the latest it can finish, its claim + `lifeBoundSeconds`
 * (the POST is cut off then: delivery-attempt.ts), so a send whose worker died frees its place.
 */
export function occupiedUntil(send: Send, lifeBoundSeconds: number): number {
  return (send.finishedAt ?? send.claimedAt + lifeBoundSeconds) + WINDOW_SECONDS;
}

/** What a claim knows: the endpoint's limit and sends, the time, and the line of waiting jobs. */
export interface ClaimState {
  limit: number;
  now: number;
  sends: readonly Send[];
  /** When the next refused job may try (webhook_endpoint.rate_paced_until), or null. */
  pacedUntil: number | null;
  /** The longest a send can last from its claim: the attempt's time limit. */
  lifeBoundSeconds: number;
}

/** A claim's answer; `stale`: the sends that no longer occupy the endpoint (their rows are deleted). */
export type ClaimDecision = { allowed: true; stale: string[] } | { allowed: false; stale: string[]; retryAt: number; pacedUntil: number };

/** May a send to the endpoint start now? If not, when its job tries again, and the line after it. */
export function decideClaim(state: ClaimState): ClaimDecision {
  const occupies = (send: Send) => occupiedUntil(send, state.lifeBoundSeconds) > state.now;
  const stale = state.sends.filter((send) => !occupies(send)).map((send) => send.id);
  const occupying = state.sends.filter(occupies);
  if (occupying.length < state.limit) return { allowed: true, stale };
  return { allowed: false, stale, ...nextTry(occupying, state.limit, state.now, state.pacedUntil) };
}

/**
 * When a refused job tries again: not before a place can be free, and not before the jobs already
 * waiting (the line), each of which moves the line on by one pace. So a backlog comes back at
 * about the rate places free up, rather than every job each second to be refused again.
 */
export function nextTry(
  occupying: readonly Send[],
  limit: number,
  now: number,
  pacedUntil: number | null,
): { retryAt: number; pacedUntil: number } {
  // The earliest each send can stop occupying: 1 s after its finish; one not finished yet may finish now.
  const frees = occupying.map((send) => (send.finishedAt ?? now) + WINDOW_SECONDS).sort((a, b) => a - b);
  // Enough of them must end to leave one place (more than one when the limit was lowered meanwhile).
  const free = frees[occupying.length - limit];
  const retryAt = Math.max(free, pacedUntil ?? free);
  return { retryAt, pacedUntil: retryAt + paceSeconds(occupying, limit, now) };
}

/**
 * The time between two waiting jobs' tries: a place is held for 1 s after a send plus the send's
 * own life (from its claim to its finish), so `limit` places free once per (1 s + life); the life
 * is the longest among the sends in the window (one not finished yet has lasted at least until now).
 */
export function paceSeconds(occupying: readonly Send[], limit: number, now: number): number {
  const life = Math.max(0, ...occupying.map((send) => (send.finishedAt ?? now) - send.claimedAt));
  return ((WINDOW_SECONDS + life) / limit) * PACE_MARGIN;
}
