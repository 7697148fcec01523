import { Field, Int, ObjectType } from 'type-graphql';
import { graphqlEnum } from '../graphql/graphql-enum.js';
import {
  CANCELLATION_METHODS,
  CANCELLATION_REASONS,
  cancellationMethod,
  type CancellationMethod,
  type CancellationReason,
} from './cancellation-charges.js';

/** What each reason adds to the method it decides (cancellation-charges.ts). */
const REASON_NOTES: Partial<Record<CancellationReason, string>> = {
  free_look: ", and only within POLICY_FREE_LOOK_DAYS of the policy's effectiveDate",
  fraud: '; it cannot be reinstated',
};

export const CancellationReasonEnum = graphqlEnum(CANCELLATION_REASONS, {
  name: 'CancellationReason',
  description: 'Why a policy is cancelled: it decides the method',
  values: Object.fromEntries(
    CANCELLATION_REASONS.map((reason) => [reason, `Method ${cancellationMethod(reason)}${REASON_NOTES[reason] ?? ''}`]),
  ),
});

export const CancellationMethodEnum = graphqlEnum(CANCELLATION_METHODS, {
  name: 'CancellationMethod',
  description: 'How a cancellation credits the schedule periods it ends',
  values: {
    flat: 'Every period credited in full',
    short_rate: 'As pro_rata, plus a fee of POLICY_SHORT_RATE_PERCENT of the credits',
    pro_rata: 'Each period credited for the days of it left',
  },
});

/**
 * A policy's cancellation (spec section 14), also while it lies in the future. Nothing cancels
 * yet: `Policy.cancellation` is always null until cancellation is built, but its shape is fixed.
 */
@ObjectType('PolicyCancellation', { simpleResolvers: true })
export class PolicyCancellation {
  @Field(() => String, { description: 'YYYY-MM-DD, the day cover ends' })
  effectiveDate!: string;

  @Field(() => CancellationReasonEnum)
  reason!: CancellationReason;

  @Field(() => CancellationMethodEnum)
  method!: CancellationMethod;

  @Field(() => Int, { description: 'Cents: the sum of its credits (not positive)' })
  credited!: number;

  @Field(() => Int, { description: 'Cents: the short-rate fee, else 0' })
  fee!: number;

  @Field(() => String, { description: 'RFC 3339' })
  createdAt!: string;
}
