import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, ID, InputType } from 'type-graphql';
import {
  BankIdentifier,
  BoundedJson,
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
  RequiredTextIfGiven,
  TaxId,
} from '../input/rules.js';
import { ADDRESS_FIELDS } from './address.type.js';
import { ValidateBy } from 'class-validator';

/** Contract section 4; also what the cost of a query counts for these lists (query-cost.ts). */
export const MAX_BANK_ACCOUNTS = 10;
export const MAX_OWNERS = 25;
/** Contract section 12: address properties beyond the named ones are bounded. */
export const ADDRESS_EXTRAS_BOUNDS = { maxBytes: 2048, maxDepth: 3 };

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
    description: 'Further properties to keep with the address (REST clients send them inline); at most 2 KB as JSON, 3 levels deep',
  })
  @BoundedJson(ADDRESS_EXTRAS_BOUNDS)
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
  @Field(() => String, {
    nullable: true,
    description: '4 to 40 letters or digits (separators allowed); stored encrypted, responses carry taxIdLast4',
  })
  @TaxId()
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
  @Field(() => [BankAccountInput], { nullable: true, description: `At most ${MAX_BANK_ACCOUNTS}` })
  @MaxItems(MAX_BANK_ACCOUNTS)
  bankAccounts?: BankAccountInput[] | null;
  @Field(() => [OwnerInput], { nullable: true, description: `At most ${MAX_OWNERS}; ownership adds up to at most 100` })
  @MaxItems(MAX_OWNERS)
  @OwnershipTotalAtMost(100)
  owners?: OwnerInput[] | null;
  @Field(() => ID, {
    nullable: true,
    description:
      "Parent organization (must be accessible, and less deep than ORGANIZATION_MAX_DEPTH, 32 levels by default, a root being level 1); defaults to the token's org, else a root",
  })
  parentId?: string | null;
}

/**
 * PATCH /api/v1/organization/{id} and updateOrganization (contract section 15): a merge patch
 * (RFC 7396) of the section 4 fields. Absent keeps a field, null removes an optional one (name
 * then defaults to legalName again), `address` is merged field by field, `bankAccounts` and
 * `owners` are replaced whole. `id` and `parentId` are not fields: they never change.
 */
@InputType('UpdateOrganizationInput')
export class UpdateOrganizationInput {
  @Field(() => String, { nullable: true, description: 'null: back to legalName' }) @OptionalText() name?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText(2000) description?: string | null;
  @Field(() => String, { nullable: true }) @HttpUrl() logo?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText() type?: string | null;
  @Field(() => String, { nullable: true }) @OptionalText(22) descriptor?: string | null;
  @Field(() => String, { nullable: true, description: 'Required: cannot be null' }) @RequiredTextIfGiven() legalName?: string | null;
  @Field(() => String, { nullable: true, description: 'Required: cannot be null' }) @RequiredTextIfGiven() legalType?: string | null;
  @Field(() => String, { nullable: true, description: 'Required: cannot be null' }) @RequiredTextIfGiven() taxId?: string | null;
  @Field(() => String, { nullable: true }) @Phone() phone?: string | null;
  @Field(() => String, { nullable: true }) @Email() email?: string | null;
  @Field(() => String, { nullable: true }) @HttpUrl() website?: string | null;
  @Field(() => AddressInput, {
    nullable: true,
    description: 'Merged into the stored address (RFC 7396): a field set to null is removed, an absent one kept; null removes the address',
  })
  @Nested()
  address?: AddressInput | null;
  @Field(() => [BankAccountInput], {
    nullable: true,
    description: `Replaces every bank account (at most ${MAX_BANK_ACCOUNTS}); null or [] removes them`,
  })
  @MaxItems(MAX_BANK_ACCOUNTS)
  bankAccounts?: BankAccountInput[] | null;
  @Field(() => [OwnerInput], {
    nullable: true,
    description: `Replaces every owner (at most ${MAX_OWNERS}; ownership adds up to at most 100); null or [] removes them`,
  })
  @MaxItems(MAX_OWNERS)
  @OwnershipTotalAtMost(100)
  owners?: OwnerInput[] | null;
}
