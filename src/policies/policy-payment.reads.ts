import { rfc3339, type ReadColumns, type ReadOf } from '../database/read-model.js';
import { pages } from '../graphql/batch.js';
import type { PolicyPayment } from './policy-payment.entity.js';
import { policyRowsPage } from './policy-rows-page.js';

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

/** A page of payments and refunds per policy at once, oldest first, by `policy_payment_policy_seq_index`. */
export const PAYMENTS_PAGE = policyRowsPage('policy_payment', 'm', PAYMENT_COLUMNS);

/** A policy's payments and refunds, a page of each policy's at once (`ctx.load(paymentPages, key)`). */
export const paymentPages = pages<PaymentRead>({ page: PAYMENTS_PAGE });
