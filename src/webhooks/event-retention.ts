import type { Logger } from 'pino';
import type { WebhookSettings } from '../config.js';
import type { Database } from '../database/database.js';
import { untimed } from '../jobs/job-queue.js';
import { purgeOldSends } from './delivery-rate-limit.js';

/**
 * Event retention (contract section 11: events are kept for 30 days, `settings.retentionSeconds`):
 * deletes older events, their ancestor rows, and their deliveries with their rows in the attempt
 * log (by cascade: the log is kept as long as the events, contract section 22). Apart from
 * delivery, which it shares only its start and stop with: it runs on the instances that run the
 * delivery workers, every ten minutes. The rate limit's old sends are swept on the same timer.
 */

/** Deletes the events past their retention, in one statement without the request timeouts (a backlog can be large). */
export function purgeOldEvents(database: Database, settings: WebhookSettings, logger: Logger): Promise<unknown> {
  return untimed(database, (tx) =>
    tx.query<{ count: number }>(
      `with gone as (delete from event where created_at < now() - make_interval(secs => ?) returning seq),
         cleared as (delete from event_ancestor a using gone where a.event_seq = gone.seq)
       select count(*)::int as count from gone`,
      [settings.retentionSeconds],
    ),
  )
    .then(([{ count }]) => count > 0 && logger.info({ count }, 'deleted events past their retention'))
    .catch((error) => logger.warn({ err: error }, 'could not delete old events'));
}

/** Purges now and every ten minutes; the timer does not hold the process. Returns the stop. */
export function startEventRetention(database: Database, settings: WebhookSettings, logger: Logger): () => void {
  const purge = () => {
    void purgeOldEvents(database, settings, logger);
    void purgeOldSends(database, settings.timeoutSeconds, logger);
  };
  purge();
  const purger = setInterval(purge, 10 * 60_000).unref();
  return () => clearInterval(purger);
}
