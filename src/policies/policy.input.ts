import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ID, InputType } from 'type-graphql';
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

@InputType('CreatePolicyInput')
export class CreatePolicyInput {
  @Field(() => String, { nullable: true }) @OptionalText() internalID?: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Unique; assigned by the server when absent' })
  @PositiveInteger()
  number?: number | null;

  @Field(() => String, { nullable: true, description: '3 or 4 digits; validated, then discarded (never stored)' })
  @Cvc()
  cvc?: string | null;

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
  coverageSlug!: string;

  @Field(() => ID, { nullable: true, description: "Owning organization (must be accessible); defaults to the token's org" })
  organizationId?: string | null;
}
