import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType } from 'type-graphql';
import {
  BankIdentifier,
  CalendarDate,
  Email,
  HttpUrl,
  MaxItems,
  Nested,
  NotInFuture,
  OptionalText,
  OwnershipTotalAtMost,
  Percentage,
  Phone,
  RequiredText,
} from '../validation/rules.js';
import { ADDRESS_FIELDS } from './address.type.js';
import { ValidateBy } from 'class-validator';

@InputType('AddressInput')
export class AddressInput {
  @Field(() => String, { nullable: true }) @OptionalText() line1?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText() line2?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText() division?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText() city?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText() postal?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText() country?: string | null;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'Further properties to keep with the address (REST clients send them inline)',
  })
  @ValidateBy({
    name: 'additionalFields',
    validator: {
      validate: (value) => value == null || Object.keys(value).every((key) => !(ADDRESS_FIELDS as readonly string[]).includes(key)),
      defaultMessage: () => `must not repeat the named fields (${ADDRESS_FIELDS.join(', ')})`,
    },
  })
  additionalFields?: Record<string, unknown> | null;
}

@InputType('BankAccountInput')
export class BankAccountInput {
  @Field(() => String, { nullable: true }) @OptionalText() nickname?: string | null;
  @Field(() => String) @BankIdentifier() routing!: string;
  @Field(() => String, { description: 'Stored encrypted; responses carry accountLast4' })
  @BankIdentifier()
  account!: string;
}

@InputType('OwnerInput')
export class OwnerInput {
  @Field(() => String) @RequiredText() firstname!: string;
  @Field(() => String) @RequiredText() lastname!: string;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD, not in the future' })
  @CalendarDate({ required: false })
  @NotInFuture()
  birthdate?: string | null;
  @Field(() => String, { nullable: true, description: 'Stored encrypted; responses carry taxIdLast4' })
  @OptionalText()
  taxId?: string | null;
  @Field(() => String, { nullable: true }) @Email() email?: string | null;
  @Field(() => String, { nullable: true }) @Phone() phone?: string | null;
  @Field(() => Float, { nullable: true, description: 'Percentage owned, 0 < ownership <= 100' })
  @Percentage()
  ownership?: number | null;
  @Field(() => AddressInput, { nullable: true }) @Nested() address?: AddressInput | null;
}

@InputType('CreateOrganizationInput')
export class CreateOrganizationInput {
  @Field(() => String, { nullable: true, description: 'Defaults to legalName' }) @OptionalText() name?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText(2000) description?: string | null;
  @Field(() => String, { nullable: true }) @HttpUrl() logo?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText() type?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText(22) descriptor?: string | null;
  @Field(() => String) @RequiredText() legalName!: string;
  @Field(() => String) @RequiredText() legalType!: string;
  @Field(() => String) @RequiredText() taxId!: string;
  @Field(() => String, { nullable: true }) @Phone() phone?: string | null;
  @Field(() => String, { nullable: true }) @Email() email?: string | null;
  @Field(() => String, { nullable: true }) @HttpUrl() website?: string | null;
  @Field(() => AddressInput, { nullable: true }) @Nested() address?: AddressInput | null;
  @Field(() => [BankAccountInput], { nullable: true, description: 'At most 10' })
  @MaxItems(10)
  bankAccounts?: BankAccountInput[] | null;
  @Field(() => [OwnerInput], { nullable: true, description: 'At most 25; ownership adds up to at most 100' })
  @MaxItems(25)
  @OwnershipTotalAtMost(100)
  owners?: OwnerInput[] | null;
  @Field(() => ID, {
    nullable: true,
    description: "Parent organization (must be accessible); defaults to the token's org, else a root",
  })
  parentId?: string | null;
}
