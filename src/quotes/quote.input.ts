import { Field, ID, InputType } from 'type-graphql';
import { After, CalendarDate, NotAfter, NotInFuture, RequiredText, WithinYearsOf } from '../input/rules.js';
import { CatalogPlan } from '../policies/coverage-catalog.js';

/**
 * The policy create's body without `number`, `cvc` and `internalID` (contract section 14),
 * with the same rules (src/input/rules.ts) field for field: test/unit/quote-input.test.ts holds
 * it to CreatePolicyInput, so a field or rule added there and not here fails. Its own class
 * rather than a shared base: issuing (`createPolicy` with `quoteId`) loosened
 * CreatePolicyInput's required fields (nullable, required by its crossFieldErrors), and a
 * quote's must stay required.
 */
@InputType('CreateQuoteInput')
export class CreateQuoteInput {
  @Field(() => String) @RequiredText() ownerFirstname!: string;
  @Field(() => String) @RequiredText() ownerLastname!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not in the future' })
  @CalendarDate({ required: false })
  @NotInFuture()
  ownerDOB?: string | null;

  @Field(() => String) @RequiredText() petName!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not in the future nor after effectiveDate' })
  @CalendarDate({ required: false })
  @NotInFuture()
  @NotAfter('effectiveDate')
  petDOB?: string | null;

  @Field(() => String, { description: 'YYYY-MM-DD' })
  @CalendarDate({ required: true })
  effectiveDate!: string;

  @Field(() => String, { description: 'YYYY-MM-DD, after effectiveDate, at most 5 years later' })
  @CalendarDate({ required: true })
  @After('effectiveDate')
  @WithinYearsOf('effectiveDate', 5)
  expirationDate!: string;

  @Field(() => String, { description: 'A slug of the coverage catalog (query coverages)' })
  @RequiredText()
  @CatalogPlan()
  coverageSlug!: string;

  @Field(() => ID, {
    nullable: true,
    description: "Organization the policy would belong to (must be accessible); defaults to the token's org",
  })
  organizationId?: string | null;
}

/**
 * Fields of the policy create that a quote refuses rather than ignores (REST drops unknown
 * body fields): each is given when issuing the quote, never when quoting.
 */
export const REFUSED_QUOTE_FIELDS = ['number', 'cvc', 'internalID'] as const;
