import { randomUUID } from 'node:crypto';
import { findAccessibleOrganization, organizationReadOf, type OrganizationRead } from './organization.reads.js';
import type { Gateway } from '../database/database.js';
import type { Principal } from '../auth/principal.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import type { Deadline } from '../limits/deadline.js';
import { notFound } from '../errors/errors.js';
import { recordEventAndAudit } from '../outbox/record-event.js';
import type { RequestOrigin } from '../outbox/audit-entry.js';
import { withQuotas } from '../limits/quotas.js';
import { withDepthLimit } from '../limits/tree-depth.js';
import type { CreateOrganizationInput } from './organization.input.js';
import {
  bankAccountRows,
  INSERT_BANK_ACCOUNTS,
  INSERT_ORGANIZATIONS,
  INSERT_OWNERS,
  ownerRows,
  storedAddress,
  ORGANIZATION_FIELDS_WRITE,
  type OrganizationWrite,
} from './organization.writes.js';

/** Every field of the write map null: what a create stores for a field not sent (a new column needs no edit here). */
const ABSENT_FIELDS = Object.fromEntries(Object.keys(ORGANIZATION_FIELDS_WRITE).map((field) => [field, null])) as {
  [Field in keyof typeof ORGANIZATION_FIELDS_WRITE]: null;
};
import { organizationEventObject } from './organization-event.js';

/**
 * Creates an organization under `parentId`, else under the caller's `org`, else as a root
 * owned by the caller. Organization, bank accounts and owners are written in one transaction.
 */
export interface CreateOrganizationScope {
  db: Gateway;
  principal: Principal;
  /** The request, for the audit entry (contract section 21). */
  origin: RequestOrigin | null;
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
  const parentId = input.parentId ?? principal.org;
  const parent = parentId !== null ? await findAccessibleOrganization(scope.db, principal, parentId) : null;
  if (parentId !== null && !parent) {
    throw notFound(given ? 'Parent organization not found.' : "The token's organization was not found.");
  }

  const { cipher } = scope;
  // Past the request's deadline (its 503 has gone), no write starts.
  scope.deadline.assertOpen();
  // One transaction: the organization with its accounts and owners, and the mark on an
  // Idempotency-Key, are all stored or none. A quota over the tree and the tree's maximum depth
  // are checked by the database.
  return withDepthLimit(() =>
    withQuotas(() =>
      scope.db.transaction(async (tx) => {
        // Every field of the input that is a column is stored as sent (absent optional ones as
        // null); what the input names differently (parent, accounts, owners) is mapped here.
        const { parentId: _parentId, bankAccounts: _accounts, owners: _owners, address, name, ...fields } = input;
        const organization: OrganizationWrite = {
          ...ABSENT_FIELDS,
          ...definedOnly(fields),
          id: randomUUID(),
          parentId: parent?.id ?? null,
          ownerSub: principal.sub,
          name: name ?? input.legalName,
          address: storedAddress(address),
          version: 1,
        };
        const bankAccounts = bankAccountRows(cipher, organization.id, input.bankAccounts ?? []);
        const owners = ownerRows(cipher, organization.id, input.owners ?? []);
        // Through the write models, rows as JSON: nothing is read back, no entity is tracked.
        await tx.query(INSERT_ORGANIZATIONS, [JSON.stringify([organization])]);
        if (bankAccounts.length > 0) await tx.query(INSERT_BANK_ACCOUNTS, [JSON.stringify(bankAccounts)]);
        if (owners.length > 0) await tx.query(INSERT_OWNERS, [JSON.stringify(owners)]);
        await scope.idempotency?.recordCreated(tx, { type: 'organization', id: organization.id });
        const created = organizationReadOf(organization, bankAccounts, owners);
        // Masked as every read is: account and tax id last fours only (organization.reads.ts).
        // Its audit entry in the same statement.
        await recordEventAndAudit(
          tx,
          {
            type: 'organization.created',
            organizationId: organization.id,
            actorSub: principal.sub,
            object: organizationEventObject(created),
          },
          {
            action: 'organization.create',
            actor: scope,
            organizationId: organization.id,
            targets: [{ type: 'organization', id: organization.id }],
          },
        );
        return created;
      }),
    ),
  );
}

/** The properties that were sent (an absent optional field is stored as its column's null). */
function definedOnly<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}
