import { AsyncResource } from 'node:async_hooks';

/** A caller counts as served at the same time as another if it sent a request this recently. */
const RECENT_MS = 1000;

/**
 * Answer bytes a caller may have in the making at once while another caller is served: its
 * share is this over the mean size of its recent answers, between 1 and `share`. A caller of
 * ordinary documents (a few KB) keeps its whole share; one paging 200 KB ledgers runs one at a
 * time. An answer's size is what its work costs here (building, encoding and writing it: the
 * noisy neighbour's profile, docs/decisions.md), and it is known when the answer has gone.
 */
const SHARE_BYTES = 256 * 1024;

/** How much of a caller's mean answer size its newest answer makes (an exponential mean). */
const NEWEST_WEIGHT = 0.5;

/**
 * Requests in flight per caller (spec section 12: 16 per `sub`), shared fairly. A caller
 * may have up to `limit` requests in flight; more are refused (429). While no other caller has
 * sent a request in the last second, all of them run. Otherwise a caller runs at most its share
 * at once (`share`, fewer when its answers are large: SHARE_BYTES) and the rest of its requests
 * wait their turn here, before any work: a caller flooding the instance with its whole
 * allowance, or with a few expensive pages, cannot fill the event loop and the database pool
 * ahead of another caller's requests (docs/benchmark.md, fairness; issue 37's noisy neighbour).
 */
export class FairAdmission {
  private readonly callers = new Map<string, { running: number; waiting: Array<() => void> }>();
  /** Callers with requests waiting: the ones to look at when a place frees up. */
  private readonly queued = new Set<string>();
  /** When each caller last sent a request, oldest first (a caller is moved to the end each time). */
  private readonly recent = new Map<string, number>();
  /** The mean size of each recent caller's answers, in bytes (forgotten with the caller). */
  private readonly answerBytes = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly share: number,
  ) {}

  /**
   * `'refused'` when the caller already has `limit` requests in flight (running or waiting).
   * Otherwise `run` is called once the request may start, and `finished` must be called once
   * its answer has gone, with the bytes it wrote (or its client left while it waited).
   */
  admit(key: string, run: () => void): { refused: true } | { refused: false; started: boolean; finished: (answerBytes?: number) => void } {
    this.recent.delete(key);
    this.recent.set(key, Date.now());
    let caller = this.callers.get(key);
    if (!caller) this.callers.set(key, (caller = { running: 0, waiting: [] }));
    if (caller.running + caller.waiting.length >= this.limit) return { refused: true };
    const state = caller;
    let started = false;
    const start = () => {
      started = true;
      state.running++;
      run();
    };
    let startLater: (() => void) | undefined;
    if (state.running < this.shareOf(key)) start();
    else {
      // A waiting request starts when another one finishes, from that one's code: bound here, it
      // starts in its own async context (its trace), not in the other's.
      startLater = AsyncResource.bind(start);
      state.waiting.push(startLater);
      this.queued.add(key);
    }
    let done = false;
    return {
      refused: false,
      started,
      finished: (written = 0) => {
        // A size that is not one (a socket that counted nothing) counts as an empty answer.
        const answerBytes = Number.isFinite(written) ? written : 0;
        if (done) return;
        done = true;
        if (started) {
          state.running--;
          // Kept while the caller is recent (and forgotten with it), so the map stays as small as `recent`.
          const mean = this.answerBytes.get(key);
          if (this.recent.has(key))
            this.answerBytes.set(key, mean === undefined ? answerBytes : mean + NEWEST_WEIGHT * (answerBytes - mean));
        } else if (startLater) state.waiting.splice(state.waiting.indexOf(startLater), 1);
        if (state.running === 0 && state.waiting.length === 0) this.callers.delete(key);
        this.pump();
      },
    };
  }

  /** How many requests a caller may run now: all while it is alone, its share otherwise. */
  private shareOf(key: string): number {
    const since = Date.now() - RECENT_MS;
    for (const [other, seen] of this.recent) {
      if (seen >= since) break;
      this.recent.delete(other);
      this.answerBytes.delete(other);
    }
    const others = this.recent.size - (this.recent.has(key) ? 1 : 0);
    if (others === 0) return this.limit;
    const bytes = this.answerBytes.get(key) ?? 0;
    return Math.max(1, Math.min(this.share, Math.floor(SHARE_BYTES / Math.max(1, bytes))));
  }

  /** Starts waiting requests that now fit their caller's share. */
  private pump(): void {
    for (const key of this.queued) {
      const caller = this.callers.get(key);
      if (!caller || caller.waiting.length === 0) {
        this.queued.delete(key);
        continue;
      }
      while (caller.waiting.length > 0 && caller.running < this.shareOf(key)) caller.waiting.shift()?.();
      if (caller.waiting.length === 0) this.queued.delete(key);
    }
  }
}
