import { randomUUID } from 'node:crypto';
import { accessPredicate } from '../auth/access-rule.js';
import { badUserInput } from '../errors/errors.js';
import { eventNotFound, findAccessibleEvent } from '../events/event.reads.js';
import { auditInsertFor, auditValues } from '../outbox/audit-entry.js';
import { isUuid } from '../values/identifiers.js';
import { endpointDisabled, TEST_EVENT_TYPE, type RequestedDeliveryScope } from './requested-delivery.js';
import { DELIVERY_SELECT, type DeliveryRead } from '../events/event.reads.js';

/**
 * Whether endpoint `w` receives event `e` (SQL over those aliases, the event's organization as
 * `eo`): registered on the event's organization or above it, with a filter that admits its type;
 * a test event only ever goes to the endpoint it was sent to.
 */
const RECEIVES = `w.organization_id = any (eo.path)
  and case when e.type = '${TEST_EVENT_TYPE}' then e.data -> 'object' ->> 'endpointId' = w.id::text
    else (w.events is null or e.type = any (w.events)) end`;

const notReceiving = () =>
  badUserInput([
    {
      path: 'endpointId',
      message:
        'is not a webhook endpoint that receives this event: one of yours, registered on its organization or above it, whose events include its type',
    },
  ]);

/**
 * Event `id` once more to endpoint `endpointId` (contract section 22): a new delivery, requested
 * (its first attempt is made at once). The event must be the caller's (404); the endpoint one of
 * the caller's that receives it (400 on `endpointId`: one out of reach reads as not receiving,
 * so nothing of it is told), and enabled (409). The delivery and its audit entry in one statement.
 */
export async function redeliverEvent(scope: RequestedDeliveryScope, id: string, endpointId: string): Promise<DeliveryRead> {
  const event = await findAccessibleEvent(scope.db, scope.principal, id);
  if (!event) throw eventNotFound();
  if (!isUuid(endpointId)) throw notReceiving();
  const access = accessPredicate('o', scope.principal);
  const deliveryId = randomUUID();
  return scope.db.transaction(async (tx) => {
    const [row] = await tx.query<{ disabledReason: string | null; delivery: DeliveryRead | null }>(
      `with target as (
         select w.id, w.organization_id, w.disabled_at is not null as disabled, w.disabled_reason
         from event e join organization eo on eo.id = e.organization_id
           join webhook_endpoint w on w.id = ? and w.deleted_at is null join organization o on o.id = w.organization_id
         where e.id = ? and ${RECEIVES} and ${access.sql}
       ), d as (
         insert into webhook_delivery (id, event_id, endpoint_id, requested) select ?, ?, id, true from target where not disabled
         returning *
       ), audited as (${auditInsertFor('select organization_id from target join d on true')})
       select target.disabled_reason as "disabledReason", (select row_to_json(shown) from (select ${DELIVERY_SELECT} from d) shown) as delivery
       from target`,
      [
        endpointId.toLowerCase(),
        event.id,
        ...access.params,
        deliveryId,
        event.id,
        ...auditValues({
          action: 'event.redeliver',
          actor: { principal: scope.principal, origin: scope.origin },
          organizationId: '',
          targets: [
            { type: 'event', id: event.id },
            { type: 'webhook_endpoint', id: endpointId.toLowerCase() },
          ],
        }),
      ],
    );
    if (!row) throw notReceiving();
    if (!row.delivery) throw endpointDisabled(row.disabledReason);
    await scope.idempotency?.recordCreated(tx, { type: 'webhookDelivery', id: deliveryId });
    return row.delivery;
  });
}
