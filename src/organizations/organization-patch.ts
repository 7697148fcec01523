import stringify from 'safe-stable-stringify';
import type { StoredAddress } from './address.type.js';
import type { AddressInput, BankAccountInput, OwnerInput, UpdateOrganizationInput } from './organization.input.js';
import { ORGANIZATION_FIELDS_WRITE, storedAddress, type OrganizationFieldsWrite } from './organization.writes.js';

/**
 * A change as a merge patch (RFC 7396, contract section 15), as pure functions: the fields after
 * the patch, and which of them it changed. The database work is update-organization.ts's.
 */

/**
 * The fields a change sets as sent: every field of the write map but the address (merged apart);
 * the lists are replaced apart. Derived from the map, so a new column cannot be left out.
 */
export const PATCHED_TEXT_FIELDS = Object.keys(ORGANIZATION_FIELDS_WRITE).filter((field) => field !== 'address') as Array<
  Exclude<keyof typeof ORGANIZATION_FIELDS_WRITE, 'address'>
>;

/**
 * RFC 7396 MergePatch(target, patch): an object patch merges key by key (null removes the key,
 * nested objects merge the same way), anything else replaces the target whole. Built with
 * Object.fromEntries, so a "__proto__" key stays an ordinary property.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const merged = new Map(Object.entries(isPlainObject(target) ? target : {}));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, mergePatch(merged.get(key), value));
  }
  return Object.fromEntries(merged);
}

/**
 * The address after a patch: absent keeps it, null removes it, an object is merged into it
 * (RFC 7396) with its additional fields flat beside the named ones, as stored; GraphQL's
 * `additionalFields: null` removes every additional field.
 */
export function patchedAddress(stored: StoredAddress | null, patch: AddressInput | null | undefined): StoredAddress | null {
  if (patch === undefined) return stored;
  if (patch === null) return null;
  const { additionalFields, ...named } = patch;
  // A Map, not an object: a "__proto__" key sent by a client stays a key.
  const flat = new Map<string, unknown>();
  if (additionalFields === null && stored) {
    for (const key of Object.keys(extraFields(stored))) flat.set(key, null);
  }
  for (const [key, value] of Object.entries(additionalFields ?? {})) flat.set(key, value);
  for (const [key, value] of Object.entries(named)) if (value !== undefined) flat.set(key, value);
  return mergePatch(stored ?? {}, Object.fromEntries(flat)) as StoredAddress;
}

/** Properties of a stored address beyond the named ones. */
function extraFields(address: StoredAddress): Record<string, unknown> {
  const named = new Set(['line1', 'line2', 'division', 'city', 'postal', 'country']);
  return Object.fromEntries(Object.entries(address).filter(([key]) => !named.has(key)));
}

/**
 * The organization's fields after the patch. `name` set to null falls back to `legalName` (as
 * on create, where it defaults to it); otherwise a field absent from the patch keeps its value.
 */
export function patchedFields(current: OrganizationFieldsWrite, patch: UpdateOrganizationInput): OrganizationFieldsWrite {
  const next = { ...current };
  for (const field of PATCHED_TEXT_FIELDS) {
    const value = patch[field];
    if (value !== undefined) (next as Record<string, unknown>)[field] = value;
  }
  if (patch.name === null) next.name = next.legalName;
  next.address = patchedAddress(current.address, patch.address);
  return next;
}

/** The keys whose values differ (compared as canonical JSON: key order does not count). */
export function changedKeys<T extends object>(before: T, after: T, keys: ReadonlyArray<keyof T>): Array<keyof T> {
  return keys.filter((key) => stringify(before[key] ?? null) !== stringify(after[key] ?? null));
}

/** A bank account as compared: what a client sends, the account number in clear. */
export interface ComparableBankAccount {
  nickname: string | null;
  routing: string;
  account: string;
}

/** An owner as compared: what a client sends, the tax id in clear, the address as stored. */
export interface ComparableOwner {
  firstname: string;
  lastname: string;
  birthdate: string | null;
  taxId: string | null;
  email: string | null;
  phone: string | null;
  ownership: number | null;
  address: StoredAddress | null;
}

export function comparableBankAccounts(accounts: readonly BankAccountInput[]): ComparableBankAccount[] {
  return accounts.map((account) => ({ nickname: account.nickname ?? null, routing: account.routing, account: account.account }));
}

export function comparableOwners(owners: readonly OwnerInput[]): ComparableOwner[] {
  return owners.map((owner) => ({
    firstname: owner.firstname,
    lastname: owner.lastname,
    birthdate: owner.birthdate ?? null,
    taxId: owner.taxId ?? null,
    email: owner.email ?? null,
    phone: owner.phone ?? null,
    ownership: owner.ownership ?? null,
    address: storedAddress(owner.address),
  }));
}

/** Whether two lists hold the same items in the same order. */
export function sameList(before: readonly object[], after: readonly object[]): boolean {
  return stringify(before) === stringify(after);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
