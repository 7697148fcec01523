import type { SqlClient } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess, uuidArray } from '../database/sql.js';
import { jsonObject, pickColumns, readColumnsOf, selectList, type ReadColumns, type ReadOf } from '../database/read-model.js';
import { badUserInput, notFound } from '../errors/errors.js';
import { isUuid } from '../values/identifiers.js';
import { pageOf } from '../graphql/connection.js';
import { pages, rowsByParent, type Batch } from '../graphql/batch.js';
import type { BankAccount } from './bank-account.entity.js';
import type { Organization } from './organization.entity.js';
import type { Owner } from './owner.entity.js';
import { ORGANIZATION_WRITE } from './organization.writes.js';

/**
 * The organization's reads: plain rows selected with exactly the response's names (the entity
 * classes stay the GraphQL types and the write model; reads skip the ORM's hydration and
 * identity map, which cost more than the queries themselves: docs/benchmark.md).
 */

/** Entity properties no read serves: relations, write-only columns, secrets. */
type HiddenOrganization = 'parent' | 'ownerSub' | 'bankAccounts' | 'owners' | 'createdAt';
type HiddenBankAccount = 'organization' | 'position' | 'accountCiphertext' | 'accountKeyId';
type HiddenOwner = 'organization' | 'position' | 'taxIdCiphertext' | 'taxIdKeyId';

/** An organization as reads serve it, over the row alias `o`: every column of its write map (organization.writes.ts) but its owner's sub. */
export const ORGANIZATION_COLUMNS = readColumnsOf('o', ORGANIZATION_WRITE, ['ownerSub']) satisfies ReadColumns<
  Organization,
  HiddenOrganization,
  'parentId'
>;

export const BANK_ACCOUNT_COLUMNS = {
  id: 'b.id',
  nickname: 'b.nickname',
  routing: 'b.routing',
  accountLast4: 'b.account_last4',
} as const satisfies ReadColumns<BankAccount, HiddenBankAccount>;

export const OWNER_COLUMNS = {
  id: 'w.id',
  firstname: 'w.firstname',
  lastname: 'w.lastname',
  birthdate: 'w.birthdate',
  taxIdLast4: 'w.tax_id_last4',
  email: 'w.email',
  phone: 'w.phone',
  ownership: 'w.ownership',
  address: 'w.address',
} as const satisfies ReadColumns<Owner, HiddenOwner>;

export type BankAccountRead = ReadOf<BankAccount, HiddenBankAccount>;
export type OwnerRead = ReadOf<Owner, HiddenOwner>;
export type OrganizationRead = ReadOf<Organization, HiddenOrganization> & {
  parentId: string | null;
  /** Present when already known (just created); otherwise loaded in batches. */
  bankAccounts?: BankAccountRead[];
  owners?: OwnerRead[];
};

export const ORGANIZATION_SELECT = selectList(ORGANIZATION_COLUMNS);
/** The same organization as one JSON object (to embed in another row). */
export const ORGANIZATION_JSON = jsonObject(ORGANIZATION_COLUMNS);
export const BANK_ACCOUNT_SELECT = selectList(BANK_ACCOUNT_COLUMNS);
export const OWNER_SELECT = selectList(OWNER_COLUMNS);

/** The statement of the access-checked read by id, given the access predicate (also for `npm run explain`). */
export const ORGANIZATION_BY_ID = perAccess((access) => `select ${ORGANIZATION_SELECT} from organization o where o.id = ? and ${access}`);

/** The organization with this id if the principal may access it; one SQL statement. */
export async function findAccessibleOrganization(db: SqlClient, principal: Principal, id: string): Promise<OrganizationRead | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = accessPredicate('o', principal);
  const [row] = await db.query<OrganizationRead>(ORGANIZATION_BY_ID(sql), [id.toLowerCase(), ...params]);
  return row ?? null;
}

/** The children pager's statement: one page per parent at once (see `pages` in graphql/batch.ts). */
export const CHILDREN_PAGE = perAccess(
  (access) => `select * from (
  select ${ORGANIZATION_SELECT}, o.parent_id as owner, o.seq, row_number() over (partition by o.parent_id order by o.seq) as rank
  from organization o
  where o.parent_id = any(?::uuid[]) and ${access} and o.seq > ?::bigint
) page where rank <= ? order by owner, seq`,
);

export const ORGANIZATIONS_BY_IDS = perAccess(
  (access) => `select ${ORGANIZATION_SELECT} from organization o where o.id = any(?::uuid[]) and ${access}`,
);

/** Owners and accounts are only reached through an organization that passed the access rule. */
export const OWNERS_BY_ORGANIZATION = `select ${OWNER_SELECT}, w.organization_id as parent from owner w
  where w.organization_id = any(?::uuid[]) order by w.organization_id, w.position`;
export const BANK_ACCOUNTS_BY_ORGANIZATION = `select ${BANK_ACCOUNT_SELECT}, b.organization_id as parent from bank_account b
  where b.organization_id = any(?::uuid[]) order by b.organization_id, b.position`;

/**
 * The organizations' batched reads, for what the graph reaches beyond the root fields
 * (`ctx.load(batch, key)`, graphql/batch.ts). By id: null for one the caller may not access
 * (a parent, a policy's organization, the viewer's).
 */
export const organizationById: Batch<string, OrganizationRead | null> = {
  async read(ids, { db, principal }) {
    const access = accessPredicate('o', principal());
    const rows = await db.query<OrganizationRead>(ORGANIZATIONS_BY_IDS(access.sql), [uuidArray(ids), ...access.params]);
    const found = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => found.get(id) ?? null);
  },
};
export const childrenPages = pages<OrganizationRead>({ page: CHILDREN_PAGE });
export const ownersOf = rowsByParent<OwnerRead>(OWNERS_BY_ORGANIZATION);
export const bankAccountsOf = rowsByParent<BankAccountRead>(BANK_ACCOUNTS_BY_ORGANIZATION);

/** A just-written organization as reads serve it, from the rows written (nothing is read back). */
export function organizationReadOf(written: { parentId: string | null }, bankAccounts: object[], owners: object[]): OrganizationRead {
  const row = pickColumns(ORGANIZATION_COLUMNS, written) as OrganizationRead;
  row.bankAccounts = bankAccounts.map((account) => pickColumns(BANK_ACCOUNT_COLUMNS, account) as BankAccountRead);
  row.owners = owners.map((owner) => pickColumns(OWNER_COLUMNS, owner) as OwnerRead);
  return row;
}

export const organizationNotFound = () => notFound('Organization not found.');

/**
 * The organization a request names in `organizationId`, else the token's org claim (spec
 * section 3); with neither, 400. Any value given is an id, even "" (then 404, like any id that
 * cannot exist).
 */
export function targetOrganizationId(given: string | null | undefined, principal: Principal): string {
  const id = given ?? principal.org;
  if (id === null) throw badUserInput([{ path: 'organizationId', message: 'is required when the token carries no org claim' }]);
  return id;
}

/** That organization if the principal may access it; else 404, worded for a given id or for the token's org. */
export async function findTargetOrganization(db: SqlClient, principal: Principal, id: string, given: boolean): Promise<OrganizationRead> {
  const organization = await findAccessibleOrganization(db, principal, id);
  if (!organization) throw targetNotFound(given);
  return organization;
}

/** The 404 of a target organization out of reach, worded for a given id or for the token's org. */
export function targetNotFound(given: boolean) {
  return given ? organizationNotFound() : notFound("The token's organization was not found.");
}

/**
 * A page of the caller's entry points (spec section 10): the organizations it may access whose
 * parent it may not (or that have none), in creation order. Only two kinds can be: its org
 * claim's organization, and one it created (any other accessible row has an accessible parent,
 * since `path` and `owner_subs` include the parent's), so both are found by index.
 */
export const ENTRY_POINTS_PAGE = perAccess(
  (parentAccess) => `select ${ORGANIZATION_SELECT}, o.seq
  from organization o left join organization parent on parent.id = o.parent_id
  where (o.id = ?::uuid or o.owner_sub = ?) and o.seq > ?::bigint
    and (parent.id is null or not coalesce(${parentAccess}, false))
  order by o.seq limit ?`,
);

export async function entryPointsPage(
  db: SqlClient,
  principal: Principal,
  first: number,
  after: string,
): Promise<{ items: Array<{ node: OrganizationRead; seq: string }>; hasNextPage: boolean }> {
  const access = accessPredicate('parent', principal);
  const rows = await db.query<OrganizationRead & { seq: string }>(ENTRY_POINTS_PAGE(access.sql), [
    principal.org,
    principal.sub,
    after,
    ...access.params,
    first + 1,
  ]);
  return pageOf<OrganizationRead>(rows, first);
}
