import type { SqlClient } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { auditInsertFor, auditValues, type RequestOrigin } from '../outbox/audit-entry.js';
import { notFound } from '../errors/errors.js';
import { rfc3339 } from '../database/read-model.js';
import { EVENT_TYPES } from '../outbox/record-event.js';
import { isUuid } from '../values/identifiers.js';
import { pageOf } from '../graphql/connection.js';
import type { WebhookEndpoint } from './webhook-endpoint.type.js';

/** An endpoint as reads serve it (alias `w`); never its secret. No filter stored means every type. */
export const ENDPOINT_SELECT = `w.id, w.url, w.organization_id as "organizationId",
  coalesce(w.events, '{${EVENT_TYPES.join(',')}}'::text[]) as events, w.description, ${rfc3339('w.created_at')} as "createdAt",
  case when w.disabled_at is null then 'active' else 'disabled' end as status, w.disabled_reason as "disabledReason",
  ${rfc3339('w.disabled_at')} as "disabledAt", w.rate_limit_per_second as "rateLimitPerSecond"`;

export type EndpointRead = WebhookEndpoint;

export const endpointNotFound = () => notFound('Webhook endpoint not found.');

/** A live endpoint by id if its organization is accessible. */
export async function findAccessibleEndpoint(db: SqlClient, principal: Principal, id: string): Promise<EndpointRead | null> {
  if (!isUuid(id)) return null;
  const access = accessPredicate('o', principal);
  const [row] = await db.query<EndpointRead>(
    `select ${ENDPOINT_SELECT} from webhook_endpoint w join organization o on o.id = w.organization_id
     where w.id = ? and w.deleted_at is null and ${access.sql}`,
    [id.toLowerCase(), ...access.params],
  );
  return row ?? null;
}

/** A page of the live endpoints registered on one (already access-checked) organization. */
export async function endpointsPage(db: SqlClient, organizationId: string, first: number, after: string) {
  const rows = await db.query<EndpointRead & { seq: string }>(
    `select ${ENDPOINT_SELECT}, w.seq from webhook_endpoint w
     where w.organization_id = ? and w.deleted_at is null and w.seq > ?::bigint order by w.seq limit ?`,
    [organizationId, after, first + 1],
  );
  return pageOf<EndpointRead>(rows, first);
}

/** Marks a live, accessible endpoint deleted (its pending deliveries then fail); whether it was. */
export async function deleteAccessibleEndpoint(
  db: SqlClient,
  principal: Principal,
  origin: RequestOrigin | null,
  id: string,
): Promise<boolean> {
  if (!isUuid(id)) return false;
  const access = accessPredicate('o', principal);
  // The delete and its audit entry in one statement: no endpoint deleted, no entry (the organization is the deleted row's).
  const rows = await db.query(
    `with gone as (update webhook_endpoint w set deleted_at = now() from organization o
     where w.id = ? and w.deleted_at is null and o.id = w.organization_id and ${access.sql} returning w.id, w.organization_id),
     audited as (${auditInsertFor('select organization_id from gone')})
     select id from gone`,
    [
      id.toLowerCase(),
      ...access.params,
      ...auditValues({
        action: 'webhook_endpoint.delete',
        actor: { principal, origin },
        organizationId: '',
        targets: [{ type: 'webhook_endpoint', id: id.toLowerCase() }],
      }),
    ],
  );
  return rows.length > 0;
}
