import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ObjectType } from 'type-graphql';
import { todayUtc } from '../values/calendar-date.js';
import { BillingStatusEnum, type BillingStatus } from './billing-status.js';
import { billingOf, type Billing } from './ledger/billing.js';
import type { PolicyRead } from './policy.reads.js';

/** `Policy.billing` (contract section 19): what is billed, paid and owed today. */
@ObjectType('PolicyBilling', { simpleResolvers: true })
export class PolicyBilling implements Billing {
  @Field(() => GraphQLSafeInt, { description: 'Cents: the sum of the charges due on or before today (UTC)' })
  billed!: number;

  @Field(() => GraphQLSafeInt, { description: 'Cents: payments minus refunds' })
  paid!: number;

  @Field(() => GraphQLSafeInt, { description: 'billed - paid: positive is owed now, negative a credit (refundable)' })
  balance!: number;

  @Field(() => GraphQLSafeInt, { description: 'Cents of what fell due more than BILLING_GRACE_DAYS ago and is unpaid; 0 when none' })
  pastDue!: number;

  @Field(() => BillingStatusEnum)
  status!: BillingStatus;

  @Field(() => String, {
    nullable: true,
    description: 'YYYY-MM-DD: the first day after today on which charges falling due sum to something other than 0; else null',
  })
  nextDueDate!: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Cents due on nextDueDate; null with it' })
  nextDueAmount!: number | null;
}

/** The policy's billing summary today, from the state its read carries (`dues`, `paid`). */
export function policyBilling(policy: Pick<PolicyRead, 'dues' | 'paid'>, graceDays: number, today: string = todayUtc()): Billing {
  return billingOf({ dues: policy.dues, paid: policy.paid }, today, graceDays);
}
