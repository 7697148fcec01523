import { Entity, ManyToOne, PrimaryKey, Property, type Opt, type Ref } from '@mikro-orm/core';
import { GraphQLJSONObject } from 'graphql-scalars';
import { randomUUID } from 'node:crypto';
import { Field, ID, ObjectType } from 'type-graphql';
import { graphqlEnum } from '../graphql/graphql-enum.js';
import { Policy } from './policy.entity.js';
import { TRANSACTION_KINDS, type TransactionKind } from './ledger/kinds.js';

/** The transaction kinds under the names the entity and its readers use (declared once, in ledger/kinds.ts). */
export { TRANSACTION_KINDS as TRANSACTION_TYPES, type TransactionKind as TransactionType };

export const TransactionTypeEnum = graphqlEnum(TRANSACTION_KINDS, {
  name: 'TransactionType',
  description: "A step in a policy's life",
  values: {
    issuance: "The policy's first transaction: its premium schedule",
    renewal: "A successor's first transaction: its premium schedule",
  },
});

/**
 * One effective-dated step in a policy's life (spec section 14): the charges it adds belong to
 * it. Written once, never changed or deleted (the database refuses it, as for charges).
 */
@ObjectType('PolicyTransaction', { simpleResolvers: true })
@Entity({ tableName: 'policy_transaction' })
export class PolicyTransaction {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne({ entity: () => Policy, ref: true })
  policy!: Ref<Policy>;

  @Field(() => TransactionTypeEnum)
  @Property({ type: 'text' })
  type!: TransactionKind;

  @Field(() => String, { description: 'YYYY-MM-DD, the day it takes effect' })
  @Property({ type: 'date' })
  effectiveDate!: string;

  /** Reads serve it as RFC 3339 text (UTC, milliseconds), so it is typed as they give it. */
  @Field(() => String, { description: 'RFC 3339' })
  @Property({ type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' })
  createdAt!: Opt<string>;

  @Field(() => String, { description: 'The sub of the caller who made it' })
  @Property({ type: 'text', fieldName: 'created_by_sub' })
  createdBy!: string;

  @Field(() => GraphQLJSONObject, { description: 'Each changed field as { from, to }; {} for an issuance' })
  @Property({ type: 'json' })
  changes: Record<string, { from: unknown; to: unknown }> = {};
}
