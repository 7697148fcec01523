import { rfc3339, selectList } from '../database/read-model.js';
import { perAccess } from '../database/sql.js';
import { pages } from '../graphql/batch.js';
import type { WebhookAttempt } from './webhook-attempt.type.js';

/** An attempt as reads serve it (alias `a`): every column of the attempt log (contract section 22). */
export const ATTEMPT_COLUMNS = {
  id: 'a.id',
  eventId: 'a.event_id',
  deliveryId: 'a.delivery_id',
  attempt: 'a.attempt',
  startedAt: rfc3339('a.started_at'),
  durationMs: 'a.duration_ms',
  responseStatus: 'a.response_status',
  error: 'a.error',
  responseBody: 'a.response_body',
} as const satisfies Readonly<Record<keyof WebhookAttempt, string>>;

export type AttemptRead = WebhookAttempt;

/** Past any attempt's seq: where a newest-first page without a cursor starts. */
const NEWEST = '9223372036854775807';

/**
 * The pager's statement (`pages` of graphql/batch.ts: endpoint ids, access, after, page size):
 * each endpoint's attempts newest first, one lateral range of `webhook_attempt_endpoint_seq_index`
 * per endpoint (a page costs its rows, however long the log). The endpoints reached this far
 * passed the access rule already; it is applied again so that the statement is safe on its own.
 * `after` '0' (the first page) is read as "before the newest".
 */
export const ATTEMPTS_PAGE = perAccess(
  (access) => `with top as (
    select w.id from webhook_endpoint w join organization o on o.id = w.organization_id
    where w.id = any(?::uuid[]) and ${access}
  ),
  position as (select coalesce(nullif(?::bigint, 0), ${NEWEST}::bigint) as before, ?::int as size)
select page.* from top cross join position cross join lateral (
  select ${selectList(ATTEMPT_COLUMNS)}, top.id as owner, a.seq
  from webhook_attempt a
  where a.endpoint_id = top.id and a.seq < position.before
  order by a.seq desc limit position.size
) page order by page.owner, page.seq desc`,
);

/** A page of each endpoint's attempts at once (`ctx.load(attemptPages, key)`), newest first. */
export const attemptPages = pages<AttemptRead>({ page: (access) => ATTEMPTS_PAGE(access) });
