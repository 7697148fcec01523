import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import type { Deadline } from '../limits/deadline.js';
import { querySql, uuidArray } from '../database/sql.js';
import {
  BANK_ACCOUNT_VIEW,
  ORGANIZATION_VIEW,
  OWNER_VIEW,
  type BankAccountView,
  type OrganizationView,
  type OwnerView,
} from '../organizations/organization.view.js';
import { CHARGE_VIEW, POLICY_VIEW, policyView, type ChargeView, type PolicyView } from '../policies/policy.view.js';

/** A page of a connection: the rows with their positions, and whether more follow. */
export interface Page<T> {
  items: Array<{ node: T; seq: string }>;
  hasNextPage: boolean;
}

export interface PageKey {
  /** The organization whose children or policies are paged. */
  ownerId: string;
  first: number;
  /** Continue after this position (`seq`); '0' for the first page. */
  after: string;
}

/**
 * Per-request batch loaders for what the graph reaches beyond the root fields. Loads that
 * arrive in the same tick become one statement, so a list of 50 policies with their
 * organizations and charges costs a fixed few queries. Organizations and pages apply the
 * access rule in their SQL; owners, accounts and charges are only reached through an
 * organization or policy that already passed it.
 */
export interface Loaders {
  organization: DataLoader<string, OrganizationView | null>;
  children: DataLoader<PageKey, Page<OrganizationView>, string>;
  policies: DataLoader<PageKey, Page<PolicyView>, string>;
  owners: DataLoader<string, OwnerView[]>;
  bankAccounts: DataLoader<string, BankAccountView[]>;
  charges: DataLoader<string, ChargeView[]>;
}

type Row = Record<string, unknown>;

/**
 * Each batch first checks the request's deadline: once it has passed, no new statement starts
 * (the answer, a 503, has been sent already).
 */
export function createLoaders(em: EntityManager, deadline: Deadline, principal: () => Principal): Loaders {
  const organization = new DataLoader<string, OrganizationView | null>(async (ids) => {
    deadline.assertOpen();
    const access = accessPredicate('o', principal());
    const rows = await querySql<OrganizationView>(em, `select ${ORGANIZATION_VIEW} from organization o where o.id = any(?::uuid[]) and ${access.sql}`, [
      uuidArray(ids),
      ...access.params,
    ]);
    const found = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => found.get(id) ?? null);
  });

  /** Rows of a child table grouped by their parent id, in the order the query gives. */
  const byParent = <T>(select: string) =>
    new DataLoader<string, T[]>(async (ids) => {
      deadline.assertOpen();
      const rows = await querySql<Row & { parent: string }>(em, select, [uuidArray(ids)]);
      const groups = new Map<string, T[]>(ids.map((id) => [id, []]));
      for (const { parent, ...row } of rows) groups.get(parent)!.push(row as T);
      return ids.map((id) => groups.get(id)!);
    });

  /** One statement per distinct (first, after): a window function pages every owner at once. */
  const pager = <T>(query: (access: { sql: string }) => string, view: (row: Row) => T) =>
    new DataLoader<PageKey, Page<T>, string>(
      async (keys) => {
        deadline.assertOpen();
        const groups = new Map<string, PageKey[]>();
        for (const key of keys) groups.set(`${key.first}|${key.after}`, [...(groups.get(`${key.first}|${key.after}`) ?? []), key]);
        const pages = new Map<string, Page<T>>();
        for (const group of groups.values()) {
          const { first, after } = group[0];
          const access = accessPredicate('o', principal());
          const rows = await querySql<Row & { owner: string; seq: string }>(em, query(access), [
            uuidArray(group.map((key) => key.ownerId)),
            ...access.params,
            after,
            first + 1,
          ]);
          for (const key of group) {
            const mine = rows.filter((row) => row.owner === key.ownerId);
            pages.set(pageKey(key), {
              items: mine.slice(0, first).map(({ owner: _owner, seq, rank: _rank, ...row }) => ({ node: view(row), seq: String(seq) })),
              hasNextPage: mine.length > first,
            });
          }
        }
        return keys.map((key) => pages.get(pageKey(key))!);
      },
      { cacheKeyFn: pageKey },
    );

  return {
    organization,
    children: pager(
      (access) => `select * from (
        select ${ORGANIZATION_VIEW}, o.parent_id as owner, o.seq, row_number() over (partition by o.parent_id order by o.seq) as rank
        from organization o
        where o.parent_id = any(?::uuid[]) and ${access.sql} and o.seq > ?::bigint
      ) page where rank <= ? order by owner, seq`,
      (row) => row as unknown as OrganizationView,
    ),
    policies: pager(
      (access) => `select * from (
        select ${POLICY_VIEW}, p.organization_id as owner, p.seq, row_number() over (partition by p.organization_id order by p.seq) as rank
        from policy p join organization o on o.id = p.organization_id
        where p.organization_id = any(?::uuid[]) and ${access.sql} and p.seq > ?::bigint
      ) page where rank <= ? order by owner, seq`,
      policyView,
    ),
    owners: byParent<OwnerView>(
      `select ${OWNER_VIEW}, w.organization_id as parent from owner w where w.organization_id = any(?::uuid[]) order by w.organization_id, w.position`,
    ),
    bankAccounts: byParent<BankAccountView>(
      `select ${BANK_ACCOUNT_VIEW}, b.organization_id as parent from bank_account b where b.organization_id = any(?::uuid[]) order by b.organization_id, b.position`,
    ),
    charges: byParent<ChargeView>(
      `select ${CHARGE_VIEW}, c.policy_id as parent from charge c where c.policy_id = any(?::uuid[]) order by c.policy_id, c.sequence`,
    ),
  };
}

function pageKey(key: PageKey): string {
  return `${key.ownerId}|${key.first}|${key.after}`;
}
