import { performance } from 'node:perf_hooks';
import { unavailable, type ServiceError } from '../errors/errors.js';

/**
 * A request's deadline (spec section 12: default 10 s, then 503 UNAVAILABLE). The answer is
 * sent when the deadline passes even if the work is still running (`race`), and work that
 * checks (`assertOpen`, at each batch of SQL) stops starting new statements; a statement
 * already running is ended by PostgreSQL's statement_timeout.
 */
export class Deadline {
  private readonly at: number;

  /** `startedAt`: when the request arrived (performance.now()), so time spent waiting counts. */
  constructor(
    readonly seconds: number,
    startedAt = performance.now(),
  ) {
    this.at = startedAt + seconds * 1000;
  }

  get expired(): boolean {
    return performance.now() >= this.at;
  }

  error(): ServiceError {
    return unavailable(`The request did not finish within ${this.seconds} s; retry shortly.`);
  }

  assertOpen(): void {
    if (this.expired) throw this.error();
  }

  /** The work's result, or `late()` once the deadline passes first. */
  race<T>(work: Promise<T>, late: () => T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(late()), Math.max(0, this.at - performance.now()));
    });
    return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
  }
}
