import type { SqlClient } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../values/identifiers.js';
import { DELIVERY_SELECT, type DeliveryRead } from '../events/event.reads.js';

/** A delivery by id if its endpoint's organization is accessible (an Idempotency-Key's read-back of a redelivery). */
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
