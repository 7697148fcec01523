import { DecimalType, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Float, Int, ObjectType } from 'type-graphql';

/**
 * A plan of the coverage catalog (seeded by a migration). Amounts are in cents. A policy keeps
 * a copy of its plan (`CoverageSnapshot`) so later catalog changes never rewrite old policies.
 */
@ObjectType('Coverage', { simpleResolvers: true })
@Entity({ tableName: 'coverage_plan' })
export class CoveragePlan {
  @Field(() => String)
  @PrimaryKey({ type: 'text' })
  slug!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  name!: string;

  @Field(() => Int, { description: 'Cents' })
  @Property({ type: 'integer' })
  deductible!: number;

  @Field(() => Float, { description: 'Share of a claim reimbursed, 0 to 1' })
  @Property({ type: new DecimalType('number'), columnType: 'numeric(4,3)' })
  reimbursementRate!: number;

  @Field(() => Int, { nullable: true, description: 'Cents per policy year; null means no limit' })
  @Property({ type: 'integer', nullable: true })
  annualLimit: number | null = null;

  @Field(() => Int, { description: 'Cents' })
  @Property({ type: 'integer' })
  monthlyPremium!: number;

  @Field(() => String, { description: 'ISO 4217 code' })
  @Property({ type: 'text' })
  currency!: string;
}

export type CoverageSnapshot = Pick<
  CoveragePlan,
  'slug' | 'name' | 'deductible' | 'reimbursementRate' | 'annualLimit' | 'monthlyPremium' | 'currency'
>;
