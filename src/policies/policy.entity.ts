import { BigIntType, Collection, Entity, ManyToOne, OneToMany, PrimaryKey, Property, type Opt, type Ref } from '@mikro-orm/core';
import { GraphQLSafeInt } from 'graphql-scalars';
import { randomUUID } from 'node:crypto';
import { Field, ID, ObjectType } from 'type-graphql';
import { Node } from '../graphql/node.js';
import { Organization } from '../organizations/organization.entity.js';
import { Charge } from './charge.entity.js';
import { CoveragePlan, type CoverageSnapshot } from './coverage-plan.entity.js';

/** A pet insurance policy. `number` is its public id; `cvc` is never stored. */
@ObjectType('Policy', { simpleResolvers: true, implements: Node })
@Entity({ tableName: 'policy' })
export class Policy {
  @Field(() => ID, { description: 'Internal id, for node(id:) and client caches; the public identifier is number' })
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** bigint in PostgreSQL, a JS number here: every valid number is at most 2^53 - 1. */
  @Field(() => GraphQLSafeInt, { description: 'Unique policy number, 1 to 2^53 - 1' })
  @Property({ type: new BigIntType('number'), unique: 'policy_number_unique' })
  number!: number;

  @Field(() => String, { nullable: true, description: "The client's own identifier for the policy" })
  @Property({ type: 'text', nullable: true, fieldName: 'internal_id' })
  internalID: string | null = null;

  @ManyToOne({ entity: () => Organization, ref: true })
  organization!: Ref<Organization>;

  @Field(() => String)
  @Property({ type: 'text' })
  ownerFirstname!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  ownerLastname!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' })
  @Property({ type: 'date', nullable: true, fieldName: 'owner_dob' })
  ownerDOB: string | null = null;

  @Field(() => String)
  @Property({ type: 'text' })
  petName!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' })
  @Property({ type: 'date', nullable: true, fieldName: 'pet_dob' })
  petDOB: string | null = null;

  @Field(() => String, { description: 'YYYY-MM-DD, first day covered' })
  @Property({ type: 'date' })
  effectiveDate!: string;

  @Field(() => String, { description: 'YYYY-MM-DD, end of cover (exclusive)' })
  @Property({ type: 'date' })
  expirationDate!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  coverageSlug!: string;

  @Field(() => CoveragePlan, {
    description: 'The plan in effect today: as it was when the policy was created, or when a change in effect today chose it',
  })
  @Property({ type: 'json' })
  coverage!: CoverageSnapshot;

  /** The id of the policy this one renews (contract section 14, "Renew"); unique, so a policy has at most one successor. Reads show numbers (renewalOf, renewedBy). */
  @Property({ type: 'uuid', nullable: true, fieldName: 'renewal_of' })
  renewalOfId: string | null = null;

  @OneToMany({ entity: () => Charge, mappedBy: 'policy', orderBy: { sequence: 'asc' } })
  charges = new Collection<Charge>(this);

  /** The `sub` of the user who created it. */
  @Property({ type: 'text' })
  createdBySub!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();
}
