import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, InputType } from 'type-graphql';
import { CalendarDate, OneOf, OptionalText, PositiveInteger } from '../input/rules.js';
import { CANCELLATION_REASONS } from './cancellation-charges.js';

/** POST /api/v1/policy/{number}/cancellation and cancelPolicy (contract section 14). */
@InputType('CancelPolicyInput')
export class CancelPolicyInput {
  @Field(() => String, { description: 'YYYY-MM-DD, the day cover ends: in the term, not before the latest transaction' })
  @CalendarDate({ required: true })
  effectiveDate!: string;

  @Field(() => String, {
    description: `${CANCELLATION_REASONS.join(', ')}; free_look (flat, everything credited) only within POLICY_FREE_LOOK_DAYS of the policy's effectiveDate`,
  })
  @OneOf(CANCELLATION_REASONS)
  reason!: string;
}

/**
 * POST /api/v1/policy/{number}/reinstatement (body `{}`) and reinstatePolicy. GraphQL has no
 * empty input types, so it carries Relay's optional `clientMutationId`, which nothing reads.
 */
@InputType('ReinstatePolicyInput')
export class ReinstatePolicyInput {
  @Field(() => String, { nullable: true, description: 'Optional, ignored (GraphQL input types cannot be empty)' })
  @OptionalText()
  clientMutationId?: string | null;
}

/** POST /api/v1/policy/{number}/renewal and renewPolicy (contract section 14, "Renew"). */
@InputType('RenewPolicyInput')
export class RenewPolicyInput {
  @Field(() => String, { nullable: true, description: "The successor's plan, at today's catalog price; the policy's current plan when absent" })
  @OptionalText()
  coverageSlug?: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: "The successor's number, unique (409 CONFLICT when taken); assigned by the server when absent" })
  @PositiveInteger()
  number?: number | null;
}
