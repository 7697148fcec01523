import { Entity, ManyToOne, PrimaryKey, Property, type Ref } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Policy } from './policy.entity.js';

/** One premium charge of a policy's schedule, made when the policy is created. */
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

  @Field(() => String, { description: '"premium"' })
  @Property({ type: 'text' })
  type!: string;

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
}
