import { Entity, ManyToOne, PrimaryKey, Property, type Opt, type Ref } from '@mikro-orm/core';
import { GraphQLSafeInt } from 'graphql-scalars';
import { randomUUID } from 'node:crypto';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Node } from '../graphql/node.js';
import { listCost } from '../graphql/list-cost.js';
import { Organization } from '../organizations/organization.entity.js';
import { CoveragePlan, type CoverageSnapshot } from '../policies/coverage-plan.entity.js';
import { Policy } from '../policies/policy.entity.js';
import { ChargeTypeEnum } from '../policies/charge-types.js';
import { MAX_CHARGES, type ScheduledCharge } from '../policies/ledger/premium-schedule.js';
import { QuoteStatusEnum, type QuoteStatus } from './quote-status.js';

/** One charge of a quoted schedule: the charge issuing will write, without its id (section 5). */
@ObjectType('QuotedCharge', { simpleResolvers: true })
export class QuotedCharge implements ScheduledCharge {
  @Field(() => ChargeTypeEnum, { description: 'Always premium' }) type!: 'premium';
  @Field(() => String, { description: 'YYYY-MM-DD, inclusive' }) periodStart!: string;
  @Field(() => String, { description: 'YYYY-MM-DD, exclusive' }) periodEnd!: string;
  @Field(() => String, { description: 'YYYY-MM-DD' }) dueDate!: string;
  @Field(() => Int, { description: 'Cents' }) amount!: number;
  @Field(() => String) currency!: string;
  @Field(() => String, { description: '"scheduled"' }) status!: 'scheduled';
}

/**
 * A quote (contract section 14): the price of a policy body, kept with its coverage snapshot
 * and schedule so that issuing it later charges exactly what was quoted. `status` and
 * `policyNumber` are computed when read; owner fields are stored and shown as on a policy.
 */
@ObjectType('Quote', { simpleResolvers: true, implements: Node })
@Entity({ tableName: 'quote' })
export class Quote {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne({ entity: () => Organization, ref: true })
  organization!: Ref<Organization>;

  @Field(() => ID, { description: 'The organization the policy will belong to' })
  organizationId!: string;

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

  /** The slug quoted; `coverage` shows it with the plan as quoted. */
  @Property({ type: 'text' })
  coverageSlug!: string;

  @Field(() => CoveragePlan, { description: 'The plan as it was when the quote was made' })
  @Property({ type: 'json' })
  coverage!: CoverageSnapshot;

  @Field(() => [QuotedCharge], {
    description: 'The premium schedule issuing will write, in period order',
    complexity: listCost(MAX_CHARGES),
  })
  @Property({ type: 'json' })
  charges!: ScheduledCharge[];

  @Field(() => Int, { description: 'Cents: the sum of the charges' })
  @Property({ type: 'integer' })
  totalPremium!: number;

  @Field(() => String, { description: 'ISO 4217 code' })
  @Property({ type: 'text' })
  currency!: string;

  @Field(() => QuoteStatusEnum)
  status!: QuoteStatus;

  @Field(() => String, { description: 'RFC 3339: creation + QUOTE_VALID_DAYS; it cannot be issued after' })
  @Property({ type: 'string', columnType: 'timestamptz' })
  expiresAt!: string;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'The number of the policy issued from it; null until issued' })
  policyNumber!: number | null;

  /** Set by issuing, with `issuedAt`. */
  @ManyToOne({ entity: () => Policy, ref: true, nullable: true, fieldName: 'policy_id' })
  policy: Ref<Policy> | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  issuedAt: Date | null = null;

  /** The `sub` of the user who asked for it. */
  @Property({ type: 'text' })
  createdBySub!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Opt<Date> = new Date();
}
