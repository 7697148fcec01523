import { accessPredicate } from '../auth/access-rule.js';
import { jsonObject, pickColumns } from '../database/read-model.js';
import { perAccess } from '../database/sql.js';
import { badUserInput, preconditionFailed } from '../errors/errors.js';
import { recordEventAndAudit } from '../outbox/record-event.js';
import { recordAudit } from '../outbox/audit-entry.js';
import { jsonProblem } from '../input/input-shape.js';
import { isUuid } from '../values/identifiers.js';
import { ADDRESS_FIELDS, type StoredAddress } from './address.type.js';
import type { CreateOrganizationScope } from './create-organization.js';
import { ADDRESS_EXTRAS_BOUNDS, type UpdateOrganizationInput } from './organization.input.js';
import { organizationEventObject } from './organization-event.js';
import {
  BANK_ACCOUNT_COLUMNS,
  ORGANIZATION_SELECT,
  OWNER_COLUMNS,
  organizationNotFound,
  organizationReadOf,
  type BankAccountRead,
  type OrganizationRead,
  type OwnerRead,
} from './organization.reads.js';
import {
  changedKeys,
  comparableBankAccounts,
  comparableOwners,
  patchedFields,
  sameList,
  type ComparableBankAccount,
  type ComparableOwner,
} from './organization-patch.js';
import {
  bankAccountRows,
  DELETE_BANK_ACCOUNTS,
  DELETE_OWNERS,
  INSERT_BANK_ACCOUNTS,
  INSERT_OWNERS,
  ORGANIZATION_FIELDS_WRITE,
  ownerRows,
  UPDATE_ORGANIZATION,
  type OrganizationFieldsWrite,
} from './organization.writes.js';

/** The organization by id if accessible, locked until the transaction ends. */
const LOCK_ORGANIZATION = perAccess((access) => `select o.id from organization o where o.id = ? and ${access} for update of o`);

/**
 * Read once the lock is held, in a statement of its own (one begun before the lock was granted
 * would see the lists as they were before the transaction that held it): the organization as
 * reads serve it, and its bank accounts and owners with their sealed secrets, to compare with
 * what the change sends. The secrets never leave this module.
 */
const CURRENT = `select ${ORGANIZATION_SELECT},
  (select coalesce(json_agg(${jsonObject({ ...BANK_ACCOUNT_COLUMNS, accountCiphertext: 'b.account_ciphertext', accountKeyId: 'b.account_key_id' })}
    order by b.position), '[]') from bank_account b where b.organization_id = o.id) as "bankAccounts",
  (select coalesce(json_agg(${jsonObject({ ...OWNER_COLUMNS, taxIdCiphertext: 'w.tax_id_ciphertext', taxIdKeyId: 'w.tax_id_key_id' })}
    order by w.position), '[]') from owner w where w.organization_id = o.id) as owners
  from organization o where o.id = ?`;

type SealedBankAccount = BankAccountRead & { accountCiphertext: string; accountKeyId: string };
type SealedOwner = OwnerRead & { taxIdCiphertext: string | null; taxIdKeyId: string | null };
type CurrentRow = Omit<OrganizationRead, 'bankAccounts' | 'owners'> & { bankAccounts: SealedBankAccount[]; owners: SealedOwner[] };

const FIELD_KEYS = Object.keys(ORGANIZATION_FIELDS_WRITE) as Array<keyof OrganizationFieldsWrite>;

/**
 * Changes an organization (contract section 15) under its row lock: the patch merged into what
 * is stored once the lock is held, so that of two racing changes the second sees the first's
 * fields (and, with the version the first read, is refused 412). A change that changes nothing
 * writes nothing: same version, no event. Otherwise one more version, the lists replaced when
 * they changed (secrets sealed afresh), and `organization.updated` in the same transaction.
 */
export async function updateOrganization(
  scope: CreateOrganizationScope,
  id: string,
  patch: UpdateOrganizationInput,
  ifVersion: number | null,
): Promise<OrganizationRead> {
  if (!isUuid(id)) throw organizationNotFound();
  const { principal, cipher } = scope;
  scope.deadline.assertOpen();
  return scope.db.transaction(async (tx) => {
    const { sql, params } = accessPredicate('o', principal);
    const [locked] = await tx.query<{ id: string }>(LOCK_ORGANIZATION(sql), [id.toLowerCase(), ...params]);
    if (!locked) throw organizationNotFound();
    const [current] = await tx.query<CurrentRow>(CURRENT, [locked.id]);
    if (ifVersion !== null && ifVersion !== current.version) {
      throw preconditionFailed(
        `The organization is at version ${current.version}, not ${ifVersion}; read it again and reapply the change.`,
      );
    }

    const before = Object.fromEntries(FIELD_KEYS.map((key) => [key, current[key] ?? null])) as OrganizationFieldsWrite;
    const after = patchedFields(before, patch);
    assertAddressBounds(after.address);
    const changed: string[] = changedKeys(before, after, FIELD_KEYS);
    const accounts = listChange(
      patch.bankAccounts,
      () =>
        current.bankAccounts.map((account): ComparableBankAccount => ({
          nickname: account.nickname,
          routing: account.routing,
          account: cipher.open({ ciphertext: account.accountCiphertext, keyId: account.accountKeyId }, 'bank_account.account'),
        })),
      comparableBankAccounts,
    );
    const owners = listChange(
      patch.owners,
      () =>
        current.owners.map((owner): ComparableOwner => ({
          firstname: owner.firstname,
          lastname: owner.lastname,
          birthdate: owner.birthdate,
          taxId: owner.taxIdCiphertext
            ? cipher.open({ ciphertext: owner.taxIdCiphertext, keyId: owner.taxIdKeyId ?? '' }, 'owner.tax_id')
            : null,
          email: owner.email,
          phone: owner.phone,
          ownership: owner.ownership,
          address: owner.address,
        })),
      comparableOwners,
    );
    if (accounts) changed.push('bankAccounts');
    if (owners) changed.push('owners');
    // The Idempotency-Key's mark commits with the change (or with the answer that nothing changed).
    await scope.idempotency?.recordCreated(tx, { type: 'organization', id: current.id });

    const shownAccounts = current.bankAccounts.map((account) => pickColumns(BANK_ACCOUNT_COLUMNS, account) as BankAccountRead);
    const shownOwners = current.owners.map((owner) => pickColumns(OWNER_COLUMNS, owner) as OwnerRead);
    const target = {
      action: 'organization.update',
      actor: scope,
      organizationId: current.id,
      targets: [{ type: 'organization', id: current.id }],
    } as const;
    if (changed.length === 0) {
      // A change that changes nothing is still a successful PATCH: its entry says so, with no changes ({}).
      await recordAudit(tx, { ...target, changes: {} });
      return { ...current, bankAccounts: shownAccounts, owners: shownOwners };
    }

    // Compare and set on the version read under the lock: no row back means another change
    // got in between (the lock makes that impossible; the check keeps the rule in the statement).
    const [updated] = await tx.query<{ version: number }>(UPDATE_ORGANIZATION, [JSON.stringify(after), current.id, current.version]);
    if (!updated) throw preconditionFailed('The organization changed while this change was being made; read it again.');
    const newAccounts = accounts ? bankAccountRows(cipher, current.id, patch.bankAccounts ?? []) : null;
    const newOwners = owners ? ownerRows(cipher, current.id, patch.owners ?? []) : null;
    if (newAccounts) {
      await tx.query(DELETE_BANK_ACCOUNTS, [current.id]);
      if (newAccounts.length > 0) await tx.query(INSERT_BANK_ACCOUNTS, [JSON.stringify(newAccounts)]);
    }
    if (newOwners) {
      await tx.query(DELETE_OWNERS, [current.id]);
      if (newOwners.length > 0) await tx.query(INSERT_OWNERS, [JSON.stringify(newOwners)]);
    }
    const written = { ...current, ...after, version: updated.version };
    const answer = organizationReadOf(written, newAccounts ?? shownAccounts, newOwners ?? shownOwners);
    // The earlier values of what changed, as reads show them: lists with last fours only.
    const shownBefore: Record<string, unknown> = { ...before, bankAccounts: shownAccounts, owners: shownOwners };
    const previousAttributes = Object.fromEntries(changed.map((key) => [key, shownBefore[key] ?? null]));
    // The audit entry's changes: each changed field from its earlier to its new value, both as reads show them.
    const shownAfter: Record<string, unknown> = { ...answer };
    const changes = Object.fromEntries(changed.map((key) => [key, { from: shownBefore[key] ?? null, to: shownAfter[key] ?? null }]));
    await recordEventAndAudit(
      tx,
      {
        type: 'organization.updated',
        organizationId: current.id,
        actorSub: principal.sub,
        object: organizationEventObject(answer),
        previousAttributes,
      },
      { ...target, changes },
    );
    return answer;
  });
}

/**
 * Whether a list the patch sends differs from the stored one (`null` is the empty list; absent
 * leaves it). Stored secrets are opened only when the patch sends the list.
 */
function listChange<Input, Comparable extends object>(
  sent: readonly Input[] | null | undefined,
  stored: () => Comparable[],
  comparable: (items: readonly Input[]) => Comparable[],
): boolean {
  if (sent === undefined) return false;
  return !sameList(stored(), comparable(sent ?? []));
}

/** The merged address's additional fields keep the create's bounds (they may have grown by merging). */
function assertAddressBounds(address: StoredAddress | null): void {
  if (!address) return;
  const extras = Object.fromEntries(Object.entries(address).filter(([key]) => !(ADDRESS_FIELDS as readonly string[]).includes(key)));
  const problem = jsonProblem(extras, ADDRESS_EXTRAS_BOUNDS);
  if (problem) throw badUserInput([{ path: 'address', message: `its additional fields, once merged, ${problem}` }]);
}
