import type { SqlClient } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess } from '../database/sql.js';
import { notFound } from '../errors/errors.js';
import { isUuid } from '../values/identifiers.js';
import { pageOf } from '../graphql/connection.js';
import { rowsByParent } from '../graphql/batch.js';
import { rfc3339 } from '../database/read-model.js';
import type { Event, WebhookDelivery } from './event.type.js';
import { EVENT_API_VERSION } from '../outbox/record-event.js';

/** An event's `actor` from its stored `actor_sub` (over the row alias `e`): `{ sub, apiKeyId }` (contract section 20: a key's sub is `apikey:<id>`), or null when unknown (events older than the column: its migration). */
const EVENT_ACTOR = `case when e.actor_sub is not null then json_build_object('sub', e.actor_sub,
  'apiKeyId', case when e.actor_sub like 'apikey:%' then substr(e.actor_sub, 8) end) end`;

/** An event as reads serve it (over the row alias `e`). */
export const EVENT_SELECT = `e.id, e.type, '${EVENT_API_VERSION}'::text as "apiVersion", ${rfc3339('e.created_at')} as "createdAt",
  e.organization_id as "organizationId", ${EVENT_ACTOR} as actor, e.data`;

/**
 * An event as webhooks carry it (over the row alias `e`), as JSON text: the fields of EVENT_SELECT
 * in the order the REST answer has them (json keeps its keys' order, jsonb would not).
 */
export const EVENT_BODY = `json_build_object('id', e.id, 'type', e.type, 'apiVersion', '${EVENT_API_VERSION}'::text,
  'createdAt', ${rfc3339('e.created_at')}, 'organizationId', e.organization_id, 'actor', ${EVENT_ACTOR}, 'data', e.data)::text`;

/** A page's events carry the size of their `data` as stored (json keeps its text): what the page pays for it (event.resolver.ts). */
export type EventRead = Event & { dataBytes?: number };

/** An event's `data` size in bytes, selected with a page (over `e`). */
const DATA_BYTES = `octet_length(e.data::text) as "dataBytes"`;

/** The event by id if its organization is accessible: one statement. */
export async function findAccessibleEvent(db: SqlClient, principal: Principal, id: string): Promise<EventRead | null> {
  if (!isUuid(id)) return null;
  const access = accessPredicate('o', principal);
  const [row] = await db.query<EventRead>(
    `select ${EVENT_SELECT} from event e join organization o on o.id = e.organization_id where e.id = ? and ${access.sql}`,
    [id.toLowerCase(), ...access.params],
  );
  return row ?? null;
}

export const eventNotFound = () => notFound('Event not found.');

/**
 * A page of the events of an organization's subtree, in creation order, optionally of some
 * types: one range of `event_ancestor`'s primary key per organization, as for subtree policies
 * (docs/access-rule.md). A type filter is applied along that range. The range is a row
 * comparison over the whole key, as in ACCESSIBLE_EVENTS_PAGE (why there): with `ancestor_id = ?`
 * a generic plan, which a statement prepared by name gets after five runs, walked every event
 * after the cursor through `event_ancestor_event_index`.
 */
export async function subtreeEventsPage(
  db: SqlClient,
  principal: Principal,
  organizationId: string,
  types: string[] | null,
  first: number,
  after: string,
): Promise<{ items: Array<{ node: EventRead; seq: string }>; hasNextPage: boolean } | null> {
  if (!isUuid(organizationId)) return null;
  const access = accessPredicate('o', principal);
  const [top] = await db.query<{ id: string }>(`select o.id from organization o where o.id = ? and ${access.sql}`, [
    organizationId.toLowerCase(),
    ...access.params,
  ]);
  if (!top) return null;
  const rows = await db.query<EventRead & { seq: string }>(
    `select ${EVENT_SELECT}, ${DATA_BYTES}, e.seq from event_ancestor a join event e on e.seq = a.event_seq
     where (a.ancestor_id, a.event_seq) > (?::uuid, ?::bigint) and a.ancestor_id <= ?::uuid
       and (?::text[] is null or e.type = any(?::text[]))
     order by a.ancestor_id, a.event_seq limit ?`,
    [top.id, after, top.id, typeArray(types), typeArray(types), first + 1],
  );
  return pageOf<EventRead>(rows, first);
}

/**
 * The unfiltered list's statement: the caller's entry points (its org claim's organization and
 * the ones its `sub` created whose parent it may not access, as ENTRY_POINTS_PAGE finds them),
 * then per entry point one range of `event_ancestor`'s primary key, at most a page long, merged
 * by event sequence. Every accessible organization lies in exactly one entry point's subtree,
 * so the merge holds each accessible event once and nothing else, whatever the platform holds.
 * Parameters: org, sub, the parent's access, after, types, page size (twice).
 *
 * The range is written over the whole key, `(ancestor_id, event_seq) > (entry, after)` up to
 * the entry and ordered by both columns, not as `ancestor_id = entry ... order by event_seq`:
 * with the equality the entry is only known at run time, and PostgreSQL may instead walk
 * `event_ancestor_event_index` in seq order filtering on the ancestor, through every event of
 * the platform after the cursor (test/e2e/events-list.test.ts saw it). Only the primary key can
 * give this order, so the range is read from it and stops after a page.
 */
export const ACCESSIBLE_EVENTS_PAGE = perAccess(
  (parentAccess) => `with entry as (
  select o.id from organization o left join organization parent on parent.id = o.parent_id
  where (o.id = ?::uuid or o.owner_sub = ?) and (parent.id is null or not coalesce(${parentAccess}, false))
), position as (select ?::bigint as after, ?::text[] as types, ?::int as size)
select ${EVENT_SELECT}, ${DATA_BYTES}, e.seq from entry cross join position cross join lateral (
  select e.id, e.type, e.created_at, e.organization_id, e.actor_sub, e.data, e.seq from event_ancestor a join event e on e.seq = a.event_seq
  where (a.ancestor_id, a.event_seq) > (entry.id, position.after) and a.ancestor_id <= entry.id
    and (position.types is null or e.type = any(position.types))
  order by a.ancestor_id, a.event_seq limit position.size
) e order by e.seq limit ?`,
);

/**
 * A page of every event the caller may access, in creation order: the caller's own trees only,
 * one index range per entry point (contract section 12, docs/access-rule.md), never a walk over
 * the platform's events.
 */
export async function accessibleEventsPage(
  db: SqlClient,
  principal: Principal,
  types: string[] | null,
  first: number,
  after: string,
): Promise<{ items: Array<{ node: EventRead; seq: string }>; hasNextPage: boolean }> {
  const access = accessPredicate('parent', principal);
  const rows = await db.query<EventRead & { seq: string }>(ACCESSIBLE_EVENTS_PAGE(access.sql), [
    principal.org,
    principal.sub,
    ...access.params,
    after,
    typeArray(types),
    first + 1,
    first + 1,
  ]);
  return pageOf<EventRead>(rows, first);
}

/** A type filter as a PostgreSQL text array, or null for every type (bound twice: `? is null or ... any(?)`). */
function typeArray(types: string[] | null): string | null {
  return types ? `{${types.join(',')}}` : null;
}

/**
 * A delivery as reads serve it (over the row alias `d`): on its event (`Event.deliveries`), and as
 * a redelivery's answer (contract section 22). `nextAttemptAt` only while it is pending.
 */
export const DELIVERY_SELECT = `d.id, d.event_id as "eventId", d.endpoint_id as "endpointId", d.status, d.attempts,
  d.last_status as "lastStatus", d.last_error as "lastError", ${rfc3339('d.last_attempt_at')} as "lastAttemptAt",
  case when d.status = 'pending' then ${rfc3339('d.next_attempt_at')} end as "nextAttemptAt",
  ${rfc3339('d.delivered_at')} as "deliveredAt"`;

export type DeliveryRead = WebhookDelivery;

/**
 * At most this many deliveries are shown on an event (the default endpoint quota per tree, so
 * all of them unless the quota was raised): `Event.deliveries` is charged as this many.
 */
export const MAX_EVENT_DELIVERIES = 25;

/**
 * The deliveries of events already access-checked, by event id (batched: deliveriesOf below): only those
 * to endpoints whose organization the caller may access (an ancestor's endpoint, and its last
 * error, are not a child's to see), the first MAX_EVENT_DELIVERIES of each event. `access` is the
 * access predicate over the alias `o`.
 */
export const DELIVERIES_BY_EVENT = (access: string) => `select id, "eventId", "endpointId", status, attempts, "lastStatus", "lastError",
  "lastAttemptAt", "nextAttemptAt", "deliveredAt", parent from (
    select ${DELIVERY_SELECT}, d.event_id as parent, d.created_at,
      row_number() over (partition by d.event_id order by d.created_at, d.endpoint_id) as rank
    from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id join organization o on o.id = w.organization_id
    where d.event_id = any(?::uuid[]) and ${access}
  ) shown where rank <= ${MAX_EVENT_DELIVERIES} order by parent, created_at, "endpointId"`;

/** A delivery by id if its endpoint's organization is accessible (an Idempotency-Key's read-back of a redelivery or a test event). */
export async function findAccessibleDelivery(db: SqlClient, principal: Principal, id: string): Promise<DeliveryRead | null> {
  if (!isUuid(id)) return null;
  const access = accessPredicate('o', principal);
  const [row] = await db.query<DeliveryRead>(
    `select ${DELIVERY_SELECT} from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id
       join organization o on o.id = w.organization_id
     where d.id = ? and ${access.sql}`,
    [id.toLowerCase(), ...access.params],
  );
  return row ?? null;
}

/** An event's deliveries, batched (`ctx.load(deliveriesOf, eventId)`): events are only reached through the access rule. */
export const deliveriesOf = rowsByParent<DeliveryRead>(DELIVERIES_BY_EVENT);
