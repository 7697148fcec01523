import stringify from 'safe-stable-stringify';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import type { Gateway } from '../database/database.js';
import { badUserInput } from '../errors/errors.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import { AUDIT_INSERT, auditRow, type RequestOrigin } from '../outbox/audit-entry.js';
import { EVENT_TYPES } from '../outbox/record-event.js';
import { isUuid } from '../values/identifiers.js';
import type { UpdateWebhookEndpointInput } from './webhook-endpoint.input.js';
import { ENDPOINT_SELECT, endpointNotFound, type EndpointRead } from './webhook-endpoint.reads.js';
import { webhookUrlProblem, type UrlPolicy } from './webhook-url.js';

/**
 * Changing a webhook endpoint (contract section 22): a merge patch of `url`, `events`,
 * `description`, `enabled` and `rateLimitPerSecond`, written with its audit entry in one
 * statement, under the endpoint's row lock.
 *
 * - `enabled: false` disables an active endpoint as the delivery code does after the retry
 *   window (`disabled_at`, `disabled_reason` "disabled by request"): the trigger of
 *   Migration20261126010000 drops the deliveries of events made while it is disabled, and its
 *   pending deliveries are failed in the same statement ("the endpoint is disabled"), so that they
 *   are sent again only by a recovery. An attempt already in flight is not recalled.
 * - `enabled: true` on a disabled endpoint (whatever disabled it) makes it active and clears its
 *   back-off (`failures`, `failing_since`, `retry_at`, written by delivery-record.ts): the next
 *   event's delivery is attempted at once.
 * - `rateLimitPerSecond` is stored and shown, and delivery keeps to it (delivery-rate-limit.ts):
 *   from the change's commit on, attempts that read the endpoint claim their sends under it.
 */

/** Why an endpoint disabled by a change is disabled (its `disabledReason`). */
export const DISABLED_BY_REQUEST = 'disabled by request';

export interface UpdateEndpointScope {
  db: Gateway;
  principal: Principal;
  /** The request, for the audit entry (contract section 21). */
  origin: RequestOrigin | null;
  urls: UrlPolicy;
  /** Set while an Idempotency-Key is claimed (REST): the change marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

/** The stored fields a change may set, as the row holds them (`events` null: every type). */
interface StoredFields {
  url: string;
  events: string[] | null;
  description: string | null;
  rateLimitPerSecond: number | null;
  disabled: boolean;
  disabledReason: string | null;
}

/** What the change does to the endpoint's state: nothing, or disable or enable it. */
type Switch = 'keep' | 'disable' | 'enable';

/** The fields after the patch: an absent field keeps its value, null removes an optional one. */
export function patchedEndpoint(current: StoredFields, patch: UpdateWebhookEndpointInput): { next: StoredFields; change: Switch } {
  const change: Switch =
    patch.enabled === false && !current.disabled ? 'disable' : patch.enabled === true && current.disabled ? 'enable' : 'keep';
  return {
    next: {
      url: patch.url ?? current.url,
      events: patch.events === undefined ? current.events : patch.events,
      description: patch.description === undefined ? current.description : patch.description,
      rateLimitPerSecond: patch.rateLimitPerSecond === undefined ? current.rateLimitPerSecond : patch.rateLimitPerSecond,
      disabled: change === 'keep' ? current.disabled : change === 'disable',
      disabledReason: change === 'keep' ? current.disabledReason : change === 'disable' ? DISABLED_BY_REQUEST : null,
    },
    change,
  };
}

/** The endpoint's fields as reads show them (no filter: every type), for the audit entry's `changes`. */
function shown(fields: StoredFields) {
  return {
    url: fields.url,
    events: fields.events ?? [...EVENT_TYPES],
    description: fields.description,
    rateLimitPerSecond: fields.rateLimitPerSecond,
    status: fields.disabled ? 'disabled' : 'active',
    disabledReason: fields.disabledReason,
  };
}

/**
 * Each field that differs as reads show it, `{ from, to }` (contract section 21). Nothing of an
 * endpoint is masked in its reads (never its secret, which a change does not touch).
 */
export function endpointChanges(before: StoredFields, after: StoredFields): Record<string, { from: unknown; to: unknown }> {
  const from = shown(before);
  const to = shown(after);
  return Object.fromEntries(
    (Object.keys(from) as Array<keyof typeof from>)
      .filter((key) => stringify(from[key]) !== stringify(to[key]))
      .map((key) => [key, { from: from[key], to: to[key] }]),
  );
}

/**
 * Changes a live endpoint of an organization the caller may access (else 404), and answers it as
 * reads do. A new URL is checked against the URL policy (DNS included) before anything is read.
 */
export async function updateWebhookEndpoint(
  scope: UpdateEndpointScope,
  id: string,
  patch: UpdateWebhookEndpointInput,
): Promise<EndpointRead> {
  const { db, principal } = scope;
  if (typeof patch.url === 'string') {
    const problem = await webhookUrlProblem(patch.url, scope.urls);
    if (problem) throw badUserInput([{ path: 'url', message: problem }]);
  }
  if (!isUuid(id)) throw endpointNotFound();
  const endpointId = id.toLowerCase();
  const access = accessPredicate('o', principal);
  return db.transaction(async (tx) => {
    // The row lock: a change racing another (or the delivery code disabling it) merges onto what that one wrote.
    const [current] = await tx.query<StoredFields & { organizationId: string }>(
      `select w.url, w.events, w.description, w.rate_limit_per_second as "rateLimitPerSecond",
         w.disabled_at is not null as disabled, w.disabled_reason as "disabledReason", w.organization_id as "organizationId"
       from webhook_endpoint w join organization o on o.id = w.organization_id
       where w.id = ? and w.deleted_at is null and ${access.sql}
       for update of w`,
      [endpointId, ...access.params],
    );
    if (!current) throw endpointNotFound();
    const { next, change } = patchedEndpoint(current, patch);
    // The change, the failing of a disabled endpoint's pending deliveries, and the audit entry: one statement.
    const [row] = await tx.query<EndpointRead>(
      `with changed as (
         update webhook_endpoint w set url = ?, events = ?::text[], description = ?, rate_limit_per_second = ?,
           disabled_at = case ?::text when 'disable' then now() when 'enable' then null else w.disabled_at end,
           disabled_reason = case ?::text when 'disable' then ?::text when 'enable' then null else w.disabled_reason end,
           failures = case when ?::text = 'enable' then 0 else w.failures end,
           failing_since = case when ?::text = 'enable' then null else w.failing_since end,
           retry_at = case when ?::text = 'enable' then null else w.retry_at end
         where w.id = ? returning ${ENDPOINT_SELECT}),
       stopped as (
         update webhook_delivery set status = 'failed', last_error = 'the endpoint is disabled'
         where ?::text = 'disable' and endpoint_id = ? and status = 'pending'),
       audited as (${AUDIT_INSERT})
       select * from changed`,
      [
        next.url,
        next.events === null ? null : `{${next.events.join(',')}}`,
        next.description,
        next.rateLimitPerSecond,
        change,
        change,
        DISABLED_BY_REQUEST,
        change,
        change,
        change,
        endpointId,
        change,
        endpointId,
        ...auditRow({
          action: 'webhook_endpoint.update',
          actor: scope,
          organizationId: current.organizationId,
          targets: [{ type: 'webhook_endpoint', id: endpointId }],
          changes: endpointChanges(current, next),
        }),
      ],
    );
    await scope.idempotency?.recordCreated(tx, { type: 'webhookEndpoint', id: endpointId });
    return row;
  });
}
