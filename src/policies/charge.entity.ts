import { Entity, ManyToOne, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { ChargeTypeEnum, type ChargeType } from './charge-types.js';
import { Policy } from './policy.entity.js';

/**
 * One line of a policy's ledger (spec section 14): written by a transaction, never changed or
 * deleted afterwards (the database refuses it). The issuance writes the premium schedule.
 */
@ObjectType('Charge', { simpleResolvers: true })
@Entity({ tableName: 'charge' })
export class Charge {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne({ entity: () => Policy, ref: true, deleteRule: 'cascade' })
  policy!: Ref<Policy>;

  /** 0-based period index within the schedule. */
  @Property({ type: 'smallint' })
  sequence!: number;

  @Field(() => ChargeTypeEnum)
  @Property({ type: 'text' })
  type!: ChargeType;

  @Field(() => String, { description: 'YYYY-MM-DD, inclusive' })
  @Property({ type: 'date' })
  periodStart!: string;

  @Field(() => String, { description: 'YYYY-MM-DD, exclusive' })
  @Property({ type: 'date' })
  periodEnd!: string;

  @Field(() => String, { description: 'YYYY-MM-DD' })
  @Property({ type: 'date' })
  dueDate!: string;

  @Field(() => Int, { description: 'Cents' })
  @Property({ type: 'integer' })
  amount!: number;

  @Field(() => String)
  @Property({ type: 'text' })
  currency!: string;

  @Field(() => String, { description: '"scheduled"' })
  @Property({ type: 'text' })
  status!: string;

  @Field(() => ID, { description: 'The transaction of the policy that wrote this charge' })
  @Property({ type: 'uuid', fieldName: 'transaction_id' })
  transactionId!: string;

  @Field(() => ID, { nullable: true, description: 'For a reversal: the id of the charge it undoes (with the opposite amount); else null' })
  @Property({ type: 'uuid', nullable: true })
  reverses: string | null = null;
}
