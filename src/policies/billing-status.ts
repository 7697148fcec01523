import { graphqlEnum } from '../graphql/graphql-enum.js';

/**
 * Where a policy's billing stands today (contract section 19): the one list, its GraphQL enum
 * (OpenAPI's `enum` is read from that) and the lists' `billingStatus` filter.
 */
export const BILLING_STATUSES = ['settled', 'due', 'past_due', 'credit'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];

export const BillingStatusEnum = graphqlEnum(BILLING_STATUSES, {
  name: 'BillingStatus',
  description: 'credit (paid more than billed), past_due (unpaid beyond BILLING_GRACE_DAYS), due (owed now) or settled; today in UTC',
  values: {
    settled: 'Paid exactly what is billed',
    due: 'Owes what is billed, within the grace period',
    past_due: 'Owes charges due more than BILLING_GRACE_DAYS ago',
    credit: 'Paid more than is billed: refundable',
  },
});
