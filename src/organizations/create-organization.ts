import { randomUUID } from 'node:crypto';
import { findAccessibleOrganization, organizationReadOf, type OrganizationRead } from './organization.reads.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import type { Deadline } from '../limits/deadline.js';
import { notFound } from '../errors/errors.js';
import { recordEvent } from '../events/record-event.js';
import { withQuotas } from '../limits/quotas.js';
import { withDepthLimit } from '../limits/tree-depth.js';
import { lastFour } from '../crypto/field-cipher.js';
import type { StoredAddress } from './address.type.js';
import { BankAccount } from './bank-account.entity.js';
import type { AddressInput, CreateOrganizationInput } from './organization.input.js';
import { Organization } from './organization.entity.js';
import { Owner } from './owner.entity.js';
import { inTransaction } from '../database/transaction.js';

/**
 * Creates an organization under `parentId`, else under the caller's `org`, else as a root
 * owned by the caller. Organization, bank accounts and owners are written in one transaction.
 */
export interface CreateOrganizationScope {
  em: EntityManager;
  principal: Principal;
  cipher: FieldCipher;
  deadline: Deadline;
  /** Set while an Idempotency-Key is claimed: the create marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

export async function createOrganization(scope: CreateOrganizationScope, input: CreateOrganizationInput): Promise<OrganizationRead> {
  const { principal } = scope;
  // Any parentId the body carries is an id, even "": only absent or null falls back to the
  // token's org (a truthiness test let "" create a root outside the caller's tree).
  const given = input.parentId !== undefined && input.parentId !== null;
  const parentId = given ? input.parentId! : principal.org;
  const parent = parentId !== null ? await findAccessibleOrganization(scope.em, principal, parentId) : null;
  if (parentId !== null && !parent) {
    throw notFound(given ? 'Parent organization not found.' : "The token's organization was not found.");
  }

  const { cipher } = scope;
  // Past the request's deadline (its 503 has gone), no write starts.
  scope.deadline.assertOpen();
  // One transaction: the organization with its accounts and owners, and the mark on an
  // Idempotency-Key, are all stored or none. A quota over the tree and the tree's maximum depth
  // are checked by the database.
  return withDepthLimit(() => withQuotas(() => inTransaction(scope.em, async (em) => {
    // Every field of the input that is a column is stored as sent: a new nullable field needs
    // no edit here. What the input names differently (parent, accounts, owners) is mapped below.
    // Inserted through the entity metadata without the unit of work, like a policy: nothing is
    // read back or changed later, and tracking up to 36 entities is most of what a flush costs.
    const { parentId: _parentId, bankAccounts: _accounts, owners: _owners, address, name, ...fields } = input;
    const organization = {
      ...definedOnly(fields),
      id: randomUUID(),
      parent: parent?.id ?? null,
      ownerSub: principal.sub,
      name: name ?? input.legalName,
      address: storedAddress(address),
    };
    const bankAccounts = (input.bankAccounts ?? []).map((account, position) => {
      const sealed = cipher.seal(account.account, 'bank_account.account');
      return {
        id: randomUUID(),
        organization: organization.id,
        position,
        nickname: account.nickname ?? null,
        routing: account.routing,
        accountCiphertext: sealed.ciphertext,
        accountKeyId: sealed.keyId,
        accountLast4: lastFour(account.account),
      };
    });
    const owners = (input.owners ?? []).map((owner, position) => {
      const sealed = owner.taxId ? cipher.seal(owner.taxId, 'owner.tax_id') : null;
      return {
        id: randomUUID(),
        organization: organization.id,
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
    await em.insert(Organization, organization);
    if (bankAccounts.length > 0) await em.insertMany(BankAccount, bankAccounts);
    if (owners.length > 0) await em.insertMany(Owner, owners);
    await scope.idempotency?.recordCreated(em, { type: 'organization', id: organization.id });
    const created = organizationReadOf(organization, bankAccounts, owners);
    // Masked as every read is: account and tax id last fours only (organization.reads.ts).
    await recordEvent(em, { type: 'organization.created', organizationId: organization.id, object: created });
    return created;
  })));
}

/** The properties that were sent (an absent optional field is stored as its column's null). */
function definedOnly<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}

/** Named fields as sent (absent ones left out) plus the additional fields, flat as REST sends them. */
function storedAddress(address: AddressInput | null | undefined): StoredAddress | null {
  if (!address) return null;
  const { additionalFields, ...named } = address;
  const given = Object.fromEntries(Object.entries(named).filter(([, value]) => value !== undefined));
  return { ...additionalFields, ...given };
}
