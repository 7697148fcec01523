import type { StoredAddress } from './address.type.js';
import type { BankAccount } from './bank-account.entity.js';
import type { Organization } from './organization.entity.js';
import type { Owner } from './owner.entity.js';

/**
 * What GraphQL reads are served from: plain rows selected with exactly the response's names.
 * The entity classes stay the GraphQL types and the write model; reads skip the ORM's
 * hydration and identity map, which cost more than the queries themselves (docs/benchmark.md).
 */
export interface OrganizationView {
  id: string;
  parentId: string | null;
  name: string;
  description: string | null;
  logo: string | null;
  type: string | null;
  descriptor: string | null;
  legalName: string;
  legalType: string;
  taxId: string;
  phone: string | null;
  email: string | null;
  website: string | null;
  address: StoredAddress | null;
  /** Present when already known (just created); otherwise loaded in batches. */
  bankAccounts?: BankAccountView[];
  owners?: OwnerView[];
}

export interface BankAccountView {
  id: string;
  nickname: string | null;
  routing: string;
  accountLast4: string;
}

export interface OwnerView {
  id: string;
  firstname: string;
  lastname: string;
  birthdate: string | null;
  taxIdLast4: string | null;
  email: string | null;
  phone: string | null;
  ownership: number | null;
  address: StoredAddress | null;
}

/** The select list of an organization view over the row alias `o`. */
export const ORGANIZATION_VIEW = `o.id, o.parent_id as "parentId", o.name, o.description, o.logo, o.type, o.descriptor,
  o.legal_name as "legalName", o.legal_type as "legalType", o.tax_id as "taxId", o.phone, o.email, o.website, o.address`;

/** The same organization view as one JSON object (to embed in another row). */
export const ORGANIZATION_JSON = `json_build_object('id', o.id, 'parentId', o.parent_id, 'name', o.name, 'description', o.description,
  'logo', o.logo, 'type', o.type, 'descriptor', o.descriptor, 'legalName', o.legal_name, 'legalType', o.legal_type,
  'taxId', o.tax_id, 'phone', o.phone, 'email', o.email, 'website', o.website, 'address', o.address)`;

export const BANK_ACCOUNT_VIEW = `b.id, b.nickname, b.routing, b.account_last4 as "accountLast4"`;

export const OWNER_VIEW = `w.id, w.firstname, w.lastname, w.birthdate::text as birthdate, w.tax_id_last4 as "taxIdLast4",
  w.email, w.phone, w.ownership, w.address`;

/** A just-created organization as a view, with its accounts and owners already in hand. */
export function organizationViewOf(organization: Organization): OrganizationView {
  return {
    id: organization.id,
    parentId: organization.parent?.id ?? null,
    name: organization.name,
    description: organization.description,
    logo: organization.logo,
    type: organization.type,
    descriptor: organization.descriptor,
    legalName: organization.legalName,
    legalType: organization.legalType,
    taxId: organization.taxId,
    phone: organization.phone,
    email: organization.email,
    website: organization.website,
    address: organization.address,
    bankAccounts: organization.bankAccounts.getItems().map(bankAccountViewOf),
    owners: organization.owners.getItems().map(ownerViewOf),
  };
}

function bankAccountViewOf({ id, nickname, routing, accountLast4 }: BankAccount): BankAccountView {
  return { id, nickname, routing, accountLast4 };
}

function ownerViewOf({ id, firstname, lastname, birthdate, taxIdLast4, email, phone, ownership, address }: Owner): OwnerView {
  return { id, firstname, lastname, birthdate, taxIdLast4, email, phone, ownership, address };
}
