import { randomUUID } from 'node:crypto';
import { lastFour, type FieldCipher } from '../crypto/field-cipher.js';
import { insertStatement, updateStatement, type WriteColumns, type WriteOf } from '../database/write-model.js';
import type { StoredAddress } from './address.type.js';
import type { BankAccount } from './bank-account.entity.js';
import type { AddressInput, BankAccountInput, OwnerInput } from './organization.input.js';
import type { Organization } from './organization.entity.js';
import type { Owner } from './owner.entity.js';

/**
 * The organization's writes as write models (database/write-model.ts), shared by the create and
 * the change (contract section 15): each property named to its column, and the rows of bank
 * accounts and owners made from their input the one way, secrets sealed on the way in.
 */

/** What a change may write: every section 4 field but the id, the parent and the owner. */
export const ORGANIZATION_FIELDS_WRITE = {
  name: { column: 'name', type: 'text' },
  description: { column: 'description', type: 'text' },
  logo: { column: 'logo', type: 'text' },
  type: { column: 'type', type: 'text' },
  descriptor: { column: 'descriptor', type: 'text' },
  legalName: { column: 'legal_name', type: 'text' },
  legalType: { column: 'legal_type', type: 'text' },
  taxId: { column: 'tax_id', type: 'text' },
  phone: { column: 'phone', type: 'text' },
  email: { column: 'email', type: 'text' },
  website: { column: 'website', type: 'text' },
  address: { column: 'address', type: 'jsonb' },
} as const;

/** Left to the database: `created_at`'s default; the parent is written as its id; accounts and owners by their own inserts. */
type OmittedOrganization = 'parent' | 'bankAccounts' | 'owners' | 'createdAt';

export const ORGANIZATION_WRITE = {
  id: { column: 'id', type: 'uuid' },
  parentId: { column: 'parent_id', type: 'uuid' },
  ownerSub: { column: 'owner_sub', type: 'text' },
  ...ORGANIZATION_FIELDS_WRITE,
  version: { column: 'version', type: 'integer' },
} as const satisfies WriteColumns<Organization, OmittedOrganization, 'parentId'>;

export type OrganizationWrite = WriteOf<Organization, OmittedOrganization, { parentId: string | null }>;
/** The fields a change writes, the row whole (what was not changed, as it was). */
export type OrganizationFieldsWrite = Pick<OrganizationWrite, keyof typeof ORGANIZATION_FIELDS_WRITE>;

type OmittedBankAccount = 'organization';
export const BANK_ACCOUNT_WRITE = {
  id: { column: 'id', type: 'uuid' },
  organizationId: { column: 'organization_id', type: 'uuid' },
  position: { column: 'position', type: 'smallint' },
  nickname: { column: 'nickname', type: 'text' },
  routing: { column: 'routing', type: 'text' },
  accountCiphertext: { column: 'account_ciphertext', type: 'text' },
  accountKeyId: { column: 'account_key_id', type: 'text' },
  accountLast4: { column: 'account_last4', type: 'text' },
} as const satisfies WriteColumns<BankAccount, OmittedBankAccount, 'organizationId'>;
export type BankAccountWrite = WriteOf<BankAccount, OmittedBankAccount, { organizationId: string }>;

type OmittedOwner = 'organization';
export const OWNER_WRITE = {
  id: { column: 'id', type: 'uuid' },
  organizationId: { column: 'organization_id', type: 'uuid' },
  position: { column: 'position', type: 'smallint' },
  firstname: { column: 'firstname', type: 'text' },
  lastname: { column: 'lastname', type: 'text' },
  birthdate: { column: 'birthdate', type: 'date' },
  taxIdCiphertext: { column: 'tax_id_ciphertext', type: 'text' },
  taxIdKeyId: { column: 'tax_id_key_id', type: 'text' },
  taxIdLast4: { column: 'tax_id_last4', type: 'text' },
  email: { column: 'email', type: 'text' },
  phone: { column: 'phone', type: 'text' },
  ownership: { column: 'ownership', type: 'double precision' },
  address: { column: 'address', type: 'jsonb' },
} as const satisfies WriteColumns<Owner, OmittedOwner, 'organizationId'>;
export type OwnerWrite = WriteOf<Owner, OmittedOwner, { organizationId: string }>;

/** Each takes one parameter: its rows as a JSON array. */
export const INSERT_ORGANIZATIONS = insertStatement('organization', ORGANIZATION_WRITE);
export const INSERT_BANK_ACCOUNTS = insertStatement('bank_account', BANK_ACCOUNT_WRITE);
export const INSERT_OWNERS = insertStatement('owner', OWNER_WRITE);

/**
 * A change: the fields as a JSON object, then the id and the version it was read at (compare
 * and set: a row changed since is not written, and the caller sees no row come back).
 */
export const UPDATE_ORGANIZATION = updateStatement('organization', 'o', ORGANIZATION_FIELDS_WRITE, {
  also: 'version = o.version + 1',
  where: 'o.id = ? and o.version = ?',
  returning: 'o.version',
});

/** A change that replaces the lists removes the old rows first (positions are unique per organization). */
export const DELETE_BANK_ACCOUNTS = 'delete from bank_account where organization_id = ?';
export const DELETE_OWNERS = 'delete from owner where organization_id = ?';

/** Bank account rows in the order given; the account number sealed, its last four kept for reads. */
export function bankAccountRows(cipher: FieldCipher, organizationId: string, accounts: readonly BankAccountInput[]): BankAccountWrite[] {
  return accounts.map((account, position) => {
    const sealed = cipher.seal(account.account, 'bank_account.account');
    return {
      id: randomUUID(),
      organizationId,
      position,
      nickname: account.nickname ?? null,
      routing: account.routing,
      accountCiphertext: sealed.ciphertext,
      accountKeyId: sealed.keyId,
      accountLast4: lastFour(account.account),
    };
  });
}

/** Owner rows in the order given; the tax id sealed, its last four kept for reads. */
export function ownerRows(cipher: FieldCipher, organizationId: string, owners: readonly OwnerInput[]): OwnerWrite[] {
  return owners.map((owner, position) => {
    const sealed = owner.taxId ? cipher.seal(owner.taxId, 'owner.tax_id') : null;
    return {
      id: randomUUID(),
      organizationId,
      position,
      firstname: owner.firstname,
      lastname: owner.lastname,
      birthdate: owner.birthdate ?? null,
      taxIdCiphertext: sealed?.ciphertext ?? null,
      taxIdKeyId: sealed?.keyId ?? null,
      taxIdLast4: owner.taxId ? lastFour(owner.taxId) : null,
      email: owner.email ?? null,
      phone: owner.phone ?? null,
      ownership: owner.ownership ?? null,
      address: storedAddress(owner.address),
    };
  });
}

/** Named fields as sent (absent ones left out) plus the additional fields, flat as REST sends them. */
export function storedAddress(address: AddressInput | null | undefined): StoredAddress | null {
  if (!address) return null;
  const { additionalFields, ...named } = address;
  const given = Object.fromEntries(Object.entries(named).filter(([, value]) => value !== undefined));
  return { ...additionalFields, ...given };
}
