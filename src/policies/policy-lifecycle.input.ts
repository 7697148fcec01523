import { ValidateIf } from 'class-validator';
import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, InputType } from 'type-graphql';
import type { FieldError } from '../errors/errors.js';
import { CalendarDate, NotInFuture, OptionalText, PositiveInteger, RequiredText } from '../input/rules.js';
import type { CancellationReason } from './ledger/cancellation-charges.js';
import { CancellationReasonEnum, REASONS_DESCRIBED } from './policy-cancellation.type.js';
import { CHANGEABLE_FIELDS } from './ledger/policy-change.js';
import { CatalogPlan } from './coverage-catalog.js';

/** POST /api/v1/policy/{number}/cancellation and cancelPolicy (contract section 14). */
@InputType('CancelPolicyInput')
export class CancelPolicyInput {
  @Field(() => String, { description: 'YYYY-MM-DD, the day cover ends: in the term, not before the latest transaction' })
  @CalendarDate({ required: true })
  effectiveDate!: string;

  // An enum, so GraphQL coercion refuses any other value, listed like every input error (input/variables.ts).
  @Field(() => CancellationReasonEnum, { description: REASONS_DESCRIBED })
  reason!: CancellationReason;
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

/** Set when given (a change sets a value; it cannot remove one): not blank, at most 255 characters. */
const ChangedText = () => (target: object, key: string) => {
  ValidateIf((_input: unknown, value: unknown) => value != null)(target, key);
  RequiredText()(target, key);
};

/**
 * POST /api/v1/policy/{number}/changes and changePolicy (contract section 14, "Change"): the day
 * it takes effect and at least one field, each with create's rules. A date of birth is also
 * checked against the policy's effectiveDate once the policy is read (change-policy.ts).
 */
@InputType('ChangePolicyInput')
export class ChangePolicyInput {
  @Field(() => String, {
    description:
      'YYYY-MM-DD, the day the change takes effect: in the term, not before the latest transaction; with coverageSlug, a billing date (the start of a schedule period)',
  })
  @CalendarDate({ required: true })
  effectiveDate!: string;

  @Field(() => String, { nullable: true }) @ChangedText() petName?: string | null;

  @Field(() => String, { nullable: true, description: "YYYY-MM-DD, not in the future nor after the policy's effectiveDate" })
  @CalendarDate({ required: false })
  @NotInFuture()
  petDOB?: string | null;

  @Field(() => String, { nullable: true }) @ChangedText() ownerFirstname?: string | null;

  @Field(() => String, { nullable: true }) @ChangedText() ownerLastname?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not in the future' })
  @CalendarDate({ required: false })
  @NotInFuture()
  ownerDOB?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "A slug of the coverage catalog: the plan at today's catalog price from effectiveDate, which must then be a billing date",
  })
  @ChangedText()
  @CatalogPlan()
  coverageSlug?: string | null;

  /** At least one field besides effectiveDate; none null (a change cannot remove a value). */
  crossFieldErrors(): FieldError[] {
    const nulls = CHANGEABLE_FIELDS.filter((field) => this[field] === null).map((path) => ({
      path,
      message: 'must not be null: a change sets a value, it cannot remove one',
    }));
    if (nulls.length > 0 || CHANGEABLE_FIELDS.some((field) => this[field] != null)) return nulls;
    return [{ path: '', message: `must change at least one of ${CHANGEABLE_FIELDS.join(', ')}` }];
  }
}

/** POST /api/v1/policy/{number}/renewal and renewPolicy (contract section 14, "Renew"). */
@InputType('RenewPolicyInput')
export class RenewPolicyInput {
  @Field(() => String, {
    nullable: true,
    description: "The successor's plan, at today's catalog price; the policy's current plan when absent",
  })
  @OptionalText()
  @CatalogPlan()
  coverageSlug?: string | null;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: "The successor's number, unique (409 CONFLICT when taken); assigned by the server when absent",
  })
  @PositiveInteger()
  number?: number | null;
}
