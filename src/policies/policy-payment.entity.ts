import { Entity, ManyToOne, PrimaryKey, Property, type Opt, type Ref } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { graphqlEnum } from '../graphql/graphql-enum.js';
import { PAYMENT_KINDS, type PaymentKind } from './ledger/kinds.js';
import { Policy } from './policy.entity.js';

export const PaymentTypeEnum = graphqlEnum(PAYMENT_KINDS, {
  name: 'PaymentType',
  description: 'Money the integrator recorded for a policy (contract section 19)',
  values: {
    payment: 'Received from the policyholder',
    refund: 'Paid back to the policyholder, at most the credit balance',
  },
});

/**
 * A payment or a refund (contract section 19): money the integrator collected or paid back
 * through its own provider, recorded here. Written once, never changed or deleted (the database
 * refuses it, as for charges); `reference`, the provider's id, is unique per policy.
 */
@ObjectType('PolicyPayment', { simpleResolvers: true })
@Entity({ tableName: 'policy_payment' })
export class PolicyPayment {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne({ entity: () => Policy, ref: true })
  policy!: Ref<Policy>;

  @Field(() => PaymentTypeEnum)
  @Property({ type: 'text' })
  type!: PaymentKind;

  @Field(() => Int, { description: 'Cents, from 1 to 100,000,000' })
  @Property({ type: 'integer' })
  amount!: number;

  @Field(() => String, { description: "The payment provider's id: unique among the policy's payments and refunds" })
  @Property({ type: 'text' })
  reference!: string;

  @Field(() => String, { description: 'YYYY-MM-DD: the day it was received (a payment) or paid (a refund)' })
  @Property({ type: 'date' })
  date!: string;

  /** Reads serve it as RFC 3339 text (UTC, milliseconds), so it is typed as they give it. */
  @Field(() => String, { description: 'RFC 3339' })
  @Property({ type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' })
  createdAt!: Opt<string>;

  @Field(() => String, { description: 'The sub of the caller who recorded it' })
  @Property({ type: 'text', fieldName: 'created_by_sub' })
  createdBy!: string;
}
