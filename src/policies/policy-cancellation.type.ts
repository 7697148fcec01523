import { Field, Int, ObjectType } from 'type-graphql';

/**
 * A policy's cancellation (spec section 14), also while it lies in the future. Nothing cancels
 * yet: `Policy.cancellation` is always null until cancellation is built, but its shape is fixed.
 */
@ObjectType('PolicyCancellation', { simpleResolvers: true })
export class PolicyCancellation {
  @Field(() => String, { description: 'YYYY-MM-DD, the day cover ends' })
  effectiveDate!: string;

  @Field(() => String, { description: 'insured_request, non_payment, underwriting, fraud, free_look or other' })
  reason!: string;

  @Field(() => String, { description: 'flat, short_rate or pro_rata' })
  method!: string;

  @Field(() => Int, { description: 'Cents: the sum of its credits (not positive)' })
  credited!: number;

  @Field(() => Int, { description: 'Cents: the short-rate fee, else 0' })
  fee!: number;

  @Field(() => String, { description: 'RFC 3339' })
  createdAt!: string;
}
