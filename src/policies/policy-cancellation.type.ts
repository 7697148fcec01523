import { Field, Int, ObjectType } from 'type-graphql';
import { graphqlEnum } from '../graphql/graphql-enum.js';
import {
  CANCELLATION_METHODS,
  CANCELLATION_REASONS,
  cancellationMethod,
  type CancellationMethod,
  type CancellationReason,
} from './ledger/cancellation-charges.js';

/** What a reason allows or forbids besides the method it decides (cancel-policy.ts, reinstate-policy.ts). */
const REASON_NOTES: Partial<Record<CancellationReason, string>> = {
  free_look: "only within POLICY_FREE_LOOK_DAYS of the policy's effectiveDate",
  fraud: 'cannot be reinstated',
};

/** The method a reason decides (cancellationMethod), with its note: `flat (only within ...)`. */
function reasonEffect(reason: CancellationReason): string {
  const note = REASON_NOTES[reason];
  return note ? `${cancellationMethod(reason)} (${note})` : cancellationMethod(reason);
}

export const CancellationReasonEnum = graphqlEnum(CANCELLATION_REASONS, {
  name: 'CancellationReason',
  description: 'Why a policy is cancelled: it decides the method',
  values: Object.fromEntries(CANCELLATION_REASONS.map((reason) => [reason, `Method ${reasonEffect(reason)}`])),
});

/** Each reason with the method it decides, for the input field (REST documents it there). */
export const REASONS_DESCRIBED = `Decides the method: ${CANCELLATION_REASONS.map((reason) => `${reason} ${reasonEffect(reason)}`).join(', ')}`;

export const CancellationMethodEnum = graphqlEnum(CANCELLATION_METHODS, {
  name: 'CancellationMethod',
  description: 'How a cancellation credits the schedule periods it ends',
  values: {
    flat: 'Every period credited in full',
    short_rate: 'As pro_rata, plus a fee of POLICY_SHORT_RATE_PERCENT of the credits',
    pro_rata: 'Each period credited for the days of it left',
  },
});

/** A policy's cancellation in force (spec section 14), also while it lies in the future. */
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
