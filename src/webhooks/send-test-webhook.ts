import { randomUUID } from 'node:crypto';
import { accessPredicate } from '../auth/access-rule.js';
import { traceHeaders } from '../observability/trace-context.js';
import { auditInsertFor, auditValues } from '../outbox/audit-entry.js';
import { EVENT_INSERT } from '../outbox/record-event.js';
import { isUuid } from '../values/identifiers.js';
import { endpointDisabled, TEST_EVENT_TYPE, type RequestedDeliveryScope } from './requested-delivery.js';
import { endpointNotFound } from './webhook-endpoint.reads.js';

/**
 * A `webhook.test` event for live endpoint `id` (accessible, else 404; disabled: 409), and its
 * delivery to that endpoint only (contract section 22). One statement: the event (which the
 * fan-out trigger keeps out of the lists and away from other endpoints, Migration20261206000000),
 * its delivery, marked requested (its first attempt is made at once, the endpoint's back-off
 * aside), and the audit entry.
 */
export async function sendTestWebhook(scope: RequestedDeliveryScope, id: string): Promise<{ eventId: string; deliveryId: string }> {
  if (!isUuid(id)) throw endpointNotFound();
  const endpointId = id.toLowerCase();
  const eventId = randomUUID();
  const deliveryId = randomUUID();
  const access = accessPredicate('o', scope.principal);
  return scope.db.transaction(async (tx) => {
    const [row] = await tx.query<{ disabledReason: string | null; sent: boolean }>(
      `with endpoint as (
         select w.id, w.organization_id, w.disabled_at is not null as disabled, w.disabled_reason
         from webhook_endpoint w join organization o on o.id = w.organization_id
         where w.id = ? and w.deleted_at is null and ${access.sql}
       ), event as (
         ${EVENT_INSERT} select ?, '${TEST_EVENT_TYPE}', organization_id, json_build_object('object', json_build_object('endpointId', id)), ?, ?
         from endpoint where not disabled
         returning organization_id
       ), delivery as (
         insert into webhook_delivery (id, event_id, endpoint_id, requested) select ?, ?, ?, true from event returning id
       ), audited as (${auditInsertFor('select organization_id from event')})
       select endpoint.disabled_reason as "disabledReason", exists (select 1 from delivery) as sent from endpoint`,
      [
        endpointId,
        ...access.params,
        eventId,
        traceHeaders().traceparent ?? null,
        scope.principal.sub,
        deliveryId,
        eventId,
        endpointId,
        ...auditValues({
          action: 'webhook_endpoint.test',
          actor: { principal: scope.principal, origin: scope.origin },
          organizationId: '',
          targets: [
            { type: 'webhook_endpoint', id: endpointId },
            { type: 'event', id: eventId },
          ],
        }),
      ],
    );
    if (!row) throw endpointNotFound();
    if (!row.sent) throw endpointDisabled(row.disabledReason);
    await scope.idempotency?.recordCreated(tx, { type: 'webhookDelivery', id: deliveryId });
    return { eventId, deliveryId };
  });
}
