import type { Logger } from 'pino';

/** How often a database outage is logged while requests keep meeting it (security review 3, L2). */
export const OUTAGE_LOG_INTERVAL_SECONDS = 10;

/**
 * A database that is away is one event, not one per request: during 10 s without PostgreSQL the
 * service once wrote 4,429 error lines with a stack each (security review 3, L2), which buries
 * whatever else happened and costs the log pipeline most when it can least afford it.
 *
 * The first request answered 503 for it logs one error line, with its cause; from then on one
 * error line per interval says how many requests were answered 503 in it, until an interval
 * passes with none (then one info line: the outage is over as far as requests can tell). Each
 * request's own 503 is its access line, at info (http/request-lifecycle.ts).
 */
export class OutageLog {
  private refusedInInterval = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly logger: Pick<Logger, 'error' | 'info'>,
    private readonly intervalSeconds = OUTAGE_LOG_INTERVAL_SECONDS,
  ) {}

  /** A request answered 503 because the database could not be reached; `cause` is what the driver said. */
  refused(cause: unknown): void {
    this.refusedInInterval++;
    if (this.timer) return;
    this.logger.error(
      { err: cause, intervalSeconds: this.intervalSeconds },
      `database unavailable: answering 503; the count is logged every ${this.intervalSeconds} s while it lasts`,
    );
    this.schedule();
  }

  /** Logs the refusals not yet counted in a line (the service stops during an outage). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.refusedInInterval > 0) this.logCount();
  }

  private schedule(): void {
    // unref: a pending count never keeps a stopping process alive (stop flushes it).
    this.timer = setTimeout(() => this.endInterval(), this.intervalSeconds * 1000).unref();
  }

  private endInterval(): void {
    if (this.refusedInInterval === 0) {
      this.timer = undefined;
      this.logger.info(
        { intervalSeconds: this.intervalSeconds },
        `database outage over: no request answered 503 for ${this.intervalSeconds} s`,
      );
      return;
    }
    this.logCount();
    this.schedule();
  }

  private logCount(): void {
    const refused = this.refusedInInterval;
    this.refusedInInterval = 0;
    this.logger.error(
      { refused, intervalSeconds: this.intervalSeconds },
      `database unavailable: ${refused} requests answered 503 in the last ${this.intervalSeconds} s at most`,
    );
  }
}
