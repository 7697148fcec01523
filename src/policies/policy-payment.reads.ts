import { perAccess } from '../database/sql.js';
import { rfc3339, selectList, type ReadColumns, type ReadOf } from '../database/read-model.js';
import { pages } from '../graphql/batch.js';
import type { PolicyPayment } from './policy-payment.entity.js';

/** A policy's payments and refunds (contract section 19) as reads serve them, over the row alias `m`. */
type HiddenPayment = 'policy';

export const PAYMENT_COLUMNS = {
  id: 'm.id',
  type: 'm.type',
  amount: 'm.amount',
  reference: 'm.reference',
  date: 'm.date',
  createdAt: rfc3339('m.created_at'),
  createdBy: 'm.created_by_sub',
} as const satisfies ReadColumns<PolicyPayment, HiddenPayment>;

export type PaymentRead = ReadOf<PolicyPayment, HiddenPayment>;

/**
 * A page of payments and refunds per policy at once, oldest first (`pages` of graphql/batch.ts:
 * ids, access, after, page size), by `policy_payment_policy_seq_index`. The policies reached
 * this far passed the access rule already; it is applied again so that the statement is safe on
 * its own.
 */
export const PAYMENTS_PAGE = perAccess(
  (access) => `select * from (
  select ${selectList(PAYMENT_COLUMNS)}, m.policy_id as owner, m.seq, row_number() over (partition by m.policy_id order by m.seq) as rank
  from policy_payment m join policy p on p.id = m.policy_id join organization o on o.id = p.organization_id
  where m.policy_id = any(?::uuid[]) and ${access} and m.seq > ?::bigint
) page where rank <= ? order by owner, seq`,
);

/** A policy's payments and refunds, a page of each policy's at once (`ctx.load(paymentPages, key)`). */
export const paymentPages = pages<PaymentRead>({ page: PAYMENTS_PAGE });
