import { accessPredicate } from '../auth/access-rule.js';
import { recordAudit } from '../outbox/audit-entry.js';
import { isUuid } from '../values/identifiers.js';
import { endpointDisabled, type RequestedDeliveryScope } from './requested-delivery.js';
import { endpointNotFound } from './webhook-endpoint.reads.js';

/**
 * How far before `since` the walk of the endpoint's subtree's events starts, by sequence: an
 * event's `seq` is taken when it is inserted, its `created_at` when its transaction began, so an
 * event made since then may have a lower `seq` than the first one made since then, by as much as
 * a transaction lasts (seconds: requests have deadlines). Ten minutes is ample.
 */
const SEQ_MARGIN = "interval '10 minutes'";

/**
 * Every event since `since` that live endpoint `id` should have received and did not, queued
 * again once each (contract section 22): events of its organization's subtree made since then,
 * and since the endpoint was registered, whose type its filter admits, without a delivery to it
 * that was delivered or is pending (a failed one, or none: skipped while the endpoint was
 * disabled). Test events are never listed under an organization, so never recovered.
 *
 * The endpoint's row is locked first: two recoveries at once queue each event once between them.
 * The walk is one range of `event_ancestor`'s primary key from the first event near `since` (as
 * the event lists read it, event.reads.ts). The new deliveries are ordinary ones: they wait with
 * the endpoint's back-off and its rate limit.
 */
export async function recoverWebhookEndpoint(scope: RequestedDeliveryScope, id: string, since: string): Promise<{ queued: number }> {
  if (!isUuid(id)) throw endpointNotFound();
  const endpointId = id.toLowerCase();
  const access = accessPredicate('o', scope.principal);
  return scope.db.transaction(async (tx) => {
    const [endpoint] = await tx.query<{ organizationId: string; disabled: boolean; disabledReason: string | null }>(
      `select w.organization_id as "organizationId", w.disabled_at is not null as disabled, w.disabled_reason as "disabledReason"
       from webhook_endpoint w join organization o on o.id = w.organization_id
       where w.id = ? and w.deleted_at is null and ${access.sql} for update of w`,
      [endpointId, ...access.params],
    );
    if (!endpoint) throw endpointNotFound();
    if (endpoint.disabled) throw endpointDisabled(endpoint.disabledReason);
    const [{ queued }] = await tx.query<{ queued: number }>(
      `with start as (
         select coalesce((select seq from event where created_at >= ?::timestamptz - ${SEQ_MARGIN} order by created_at limit 1), 0) as seq
       ), queued as (
         insert into webhook_delivery (event_id, endpoint_id)
         select e.id, w.id from webhook_endpoint w cross join start
           join event_ancestor a on (a.ancestor_id, a.event_seq) >= (w.organization_id, start.seq) and a.ancestor_id <= w.organization_id
           join event e on e.seq = a.event_seq
         where w.id = ? and e.created_at >= ?::timestamptz and e.created_at >= w.created_at
           and (w.events is null or e.type = any (w.events))
           and not exists (
             select 1 from webhook_delivery d where d.event_id = e.id and d.endpoint_id = w.id and d.status in ('pending', 'delivered')
           )
         returning 1
       )
       select count(*)::int as queued from queued`,
      [since, endpointId, since],
    );
    await recordAudit(tx, {
      action: 'webhook_endpoint.recover',
      actor: { principal: scope.principal, origin: scope.origin },
      organizationId: endpoint.organizationId,
      targets: [{ type: 'webhook_endpoint', id: endpointId }],
      changes: null,
    });
    await scope.idempotency?.recordCreated(tx, { type: 'webhookRecovery', id: endpointId, queued });
    return { queued };
  });
}
