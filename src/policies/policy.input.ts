import { ValidateIf } from 'class-validator';
import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ID, InputType } from 'type-graphql';
import type { FieldError } from '../errors/errors.js';
import { CatalogPlan } from './coverage-catalog.js';
import {
  After,
  CalendarDate,
  Cvc,
  NotAfter,
  NotInFuture,
  OptionalText,
  PositiveInteger,
  RequiredText,
  WithinYearsOf,
} from '../input/rules.js';

/**
 * The fields a quote fixes (contract section 14): with `quoteId` they come from the quote and
 * sending one again is 400 naming it; without, the required ones are required as before.
 */
export const QUOTED_FIELDS = [
  'ownerFirstname',
  'ownerLastname',
  'ownerDOB',
  'petName',
  'petDOB',
  'effectiveDate',
  'expirationDate',
  'coverageSlug',
  'organizationId',
] as const;
export const REQUIRED_UNLESS_QUOTED = [
  'ownerFirstname',
  'ownerLastname',
  'petName',
  'effectiveDate',
  'expirationDate',
  'coverageSlug',
] as const;

/**
 * A quoted field's rules run only on a body without `quoteId` (with it, the field is refused
 * whole by quotedFieldErrors), and a required one's only once it has a value: its absence gets
 * the same "is required" / "must not be null" as GraphQL coercion gave when it was `String!`.
 */
const Quotable = (options: { required: boolean }) =>
  ValidateIf((input: CreatePolicyInput, value: unknown) => input.quoteId == null && (!options.required || value != null));

@InputType('CreatePolicyInput')
export class CreatePolicyInput {
  @Field(() => ID, {
    nullable: true,
    description: "Issues this quote (contract section 14): the policy's fields, coverage and charges are the quote's; send no quoted field",
  })
  quoteId?: string | null;

  @Field(() => String, { nullable: true }) @OptionalText() internalID?: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Unique; assigned by the server when absent' })
  @PositiveInteger()
  number?: number | null;

  @Field(() => String, { nullable: true, description: '3 or 4 digits; validated, then discarded (never stored)' })
  @Cvc()
  cvc?: string | null;

  @Field(() => String, { nullable: true, description: 'Required unless quoteId' })
  @Quotable({ required: true })
  @RequiredText()
  ownerFirstname?: string | null;

  @Field(() => String, { nullable: true, description: 'Required unless quoteId' })
  @Quotable({ required: true })
  @RequiredText()
  ownerLastname?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not in the future' })
  @Quotable({ required: false })
  @CalendarDate({ required: false })
  @NotInFuture()
  ownerDOB?: string | null;

  @Field(() => String, { nullable: true, description: 'Required unless quoteId' })
  @Quotable({ required: true })
  @RequiredText()
  petName?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not in the future nor after effectiveDate' })
  @Quotable({ required: false })
  @CalendarDate({ required: false })
  @NotInFuture()
  @NotAfter('effectiveDate')
  petDOB?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD; required unless quoteId' })
  @Quotable({ required: true })
  @CalendarDate({ required: true })
  effectiveDate?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, after effectiveDate, at most 5 years later; required unless quoteId' })
  @Quotable({ required: true })
  @CalendarDate({ required: true })
  @After('effectiveDate')
  @WithinYearsOf('effectiveDate', 5)
  expirationDate?: string | null;

  @Field(() => String, { nullable: true, description: 'A slug of the coverage catalog (query coverages); required unless quoteId' })
  @Quotable({ required: true })
  @RequiredText()
  @CatalogPlan()
  coverageSlug?: string | null;

  @Field(() => ID, { nullable: true, description: "Owning organization (must be accessible); defaults to the token's org" })
  @Quotable({ required: false })
  organizationId?: string | null;

  /**
   * The rules across fields that class-validator cannot say per field (validate-input.ts runs
   * them with the others, so they are listed at once): a quoted field sent with `quoteId`, a
   * required one missing without it.
   */
  crossFieldErrors(): FieldError[] {
    const sent = (field: (typeof QUOTED_FIELDS)[number]) => Object.hasOwn(this, field) && this[field] !== undefined;
    if (this.quoteId != null) {
      return QUOTED_FIELDS.filter(sent).map((path) => ({ path, message: 'is quoted: issuing takes it from the quote, leave it out' }));
    }
    return REQUIRED_UNLESS_QUOTED.filter((field) => this[field] == null).map((path) => ({
      path,
      message: this[path] === null ? 'must not be null' : 'is required',
    }));
  }
}

/** A create body without `quoteId`: its required fields are there (the rules above saw to it). */
export type NewPolicyInput = CreatePolicyInput & { [Field in (typeof REQUIRED_UNLESS_QUOTED)[number]]: string };
