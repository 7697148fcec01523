import type { SqlClient } from '../database/database.js';
import DataLoader from 'dataloader';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import type { Deadline } from '../limits/deadline.js';
import { uuidArray } from '../database/sql.js';
import {
  BANK_ACCOUNTS_BY_ORGANIZATION,
  CHILDREN_PAGE,
  ORGANIZATIONS_BY_IDS,
  OWNERS_BY_ORGANIZATION,
  type BankAccountRead,
  type OrganizationRead,
  type OwnerRead,
} from '../organizations/organization.reads.js';
import { DELIVERIES_BY_EVENT, type DeliveryRead } from '../events/event.reads.js';
import type { PolicyStatus } from '../policies/policy-status.js';
import { TRANSACTIONS_PAGE, type TransactionRead } from '../policies/policy-transaction.reads.js';
import {
  CHARGES_BY_POLICY,
  POLICIES_PAGE,
  POLICIES_WALK_END,
  SUBTREE_POLICIES_PAGE,
  SUBTREE_POLICIES_WALK_END,
  policyRead,
  type ChargeRead,
  type PolicyRead,
} from '../policies/policy.reads.js';

/** A page of a connection: the rows with their positions, and whether more follow. */
export interface Page<T> {
  items: Array<{ node: T; seq: string }>;
  hasNextPage: boolean;
  /**
   * Where the next page continues when it is past the last item: a status-filtered page that
   * stopped walking before it was full (policy.reads.ts, STATUS_FILTER_WALK).
   */
  endSeq?: string;
}

export interface PageKey {
  /** The organization whose children or policies are paged (or the policy whose transactions are). */
  ownerId: string;
  first: number;
  /** Continue after this position (`seq`); '0' for the first page. */
  after: string;
  /** Policies only: those in this status today (spec section 14). */
  status?: PolicyStatus | null;
}

/**
 * Per-request batch loaders for what the graph reaches beyond the root fields. Loads that
 * arrive in the same tick become one statement, so a list of 50 policies with their
 * organizations and charges costs a fixed few queries. Organizations and pages apply the
 * access rule in their SQL; owners, accounts and charges are only reached through an
 * organization or policy that already passed it. The statements belong to their resources
 * (`*.reads.ts`); this file only batches them.
 */
export interface Loaders {
  organization: DataLoader<string, OrganizationRead | null>;
  children: DataLoader<PageKey, Page<OrganizationRead>, string>;
  policies: DataLoader<PageKey, Page<PolicyRead>, string>;
  /** The policies of the organization and all its descendants (`includeDescendants`). */
  subtreePolicies: DataLoader<PageKey, Page<PolicyRead>, string>;
  owners: DataLoader<string, OwnerRead[]>;
  bankAccounts: DataLoader<string, BankAccountRead[]>;
  charges: DataLoader<string, ChargeRead[]>;
  /** A policy's transactions, oldest first (`ownerId` is the policy's id). */
  transactions: DataLoader<PageKey, Page<TransactionRead>, string>;
  /** An event's deliveries to endpoints the caller may access; events are only reached through the access rule. */
  deliveries: DataLoader<string, DeliveryRead[]>;
}

type Row = Record<string, unknown>;

/**
 * Each batch first checks the request's deadline: once it has passed, no new statement starts
 * (the answer, a 503, has been sent already).
 */
export function createLoaders(db: SqlClient, deadline: Deadline, principal: () => Principal): Loaders {
  const organization = new DataLoader<string, OrganizationRead | null>(async (ids) => {
    deadline.assertOpen();
    const access = accessPredicate('o', principal());
    const rows = await db.query<OrganizationRead>(ORGANIZATIONS_BY_IDS(access.sql), [uuidArray(ids), ...access.params]);
    const found = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => found.get(id) ?? null);
  });

  /** Rows of a child table grouped by their parent id, in the order the query gives. */
  const byParent = <T>(select: string) =>
    new DataLoader<string, T[]>(async (ids) => {
      deadline.assertOpen();
      const rows = await db.query<Row & { parent: string }>(select, [uuidArray(ids)]);
      const groups = new Map<string, T[]>(ids.map((id) => [id, []]));
      for (const { parent, ...row } of rows) groups.get(parent)!.push(row as T);
      return ids.map((id) => groups.get(id)!);
    });

  /**
   * One statement per distinct (first, after, status): every owner's page at once. With a
   * status, a page that came back short may have stopped walking before the end of its list:
   * `walkEnd` then finds, for those owners only, where the walk stopped, and the page says that
   * more follow from there.
   */
  const pager = <T>(
    query: (access: { sql: string }, key: PageKey) => string,
    view: (row: Row) => T,
    walkEnd?: (access: { sql: string }) => string,
  ) =>
    new DataLoader<PageKey, Page<T>, string>(
      async (keys) => {
        deadline.assertOpen();
        const groups = new Map<string, PageKey[]>();
        const groupOf = (key: PageKey) => `${key.first}|${key.after}|${key.status ?? ''}`;
        for (const key of keys) groups.set(groupOf(key), [...(groups.get(groupOf(key)) ?? []), key]);
        const pages = new Map<string, Page<T>>();
        for (const group of groups.values()) {
          const { first, after, status } = group[0];
          const access = accessPredicate('o', principal());
          const rows = await db.query<Row & { owner: string; seq: string }>(query(access, group[0]), [
            uuidArray(group.map((key) => key.ownerId)),
            ...access.params,
            after,
            first + 1,
          ]);
          const short: PageKey[] = [];
          for (const key of group) {
            const mine = rows.filter((row) => row.owner === key.ownerId);
            pages.set(pageKey(key), {
              items: mine.slice(0, first).map(({ owner: _owner, seq, rank: _rank, ...row }) => ({ node: view(row), seq: String(seq) })),
              hasNextPage: mine.length > first,
            });
            if (mine.length <= first) short.push(key);
          }
          if (status && walkEnd && short.length > 0) {
            deadline.assertOpen();
            const ends = await db.query<{ owner: string; seq: string }>(walkEnd(access), [
              uuidArray(short.map((key) => key.ownerId)),
              ...access.params,
              after,
            ]);
            for (const end of ends) {
              const page = pages.get(pageKey(short.find((key) => key.ownerId === end.owner)!))!;
              page.hasNextPage = true;
              page.endSeq = String(end.seq);
            }
          }
        }
        return keys.map((key) => pages.get(pageKey(key))!);
      },
      { cacheKeyFn: pageKey },
    );

  return {
    organization,
    children: pager(
      (access) => CHILDREN_PAGE(access.sql),
      (row) => row as unknown as OrganizationRead,
    ),
    policies: pager(
      (access, key) => POLICIES_PAGE(key.status ?? null)(access.sql),
      policyRead,
      (access) => POLICIES_WALK_END(access.sql),
    ),
    subtreePolicies: pager(
      (access, key) => SUBTREE_POLICIES_PAGE(key.status ?? null)(access.sql),
      policyRead,
      (access) => SUBTREE_POLICIES_WALK_END(access.sql),
    ),
    owners: byParent<OwnerRead>(OWNERS_BY_ORGANIZATION),
    bankAccounts: byParent<BankAccountRead>(BANK_ACCOUNTS_BY_ORGANIZATION),
    charges: byParent<ChargeRead>(CHARGES_BY_POLICY),
    transactions: pager(
      (access) => TRANSACTIONS_PAGE(access.sql),
      (row) => row as unknown as TransactionRead,
    ),
    deliveries: new DataLoader<string, DeliveryRead[]>(async (ids) => {
      deadline.assertOpen();
      const access = accessPredicate('o', principal());
      const rows = await db.query<Row & { parent: string }>(DELIVERIES_BY_EVENT(access.sql), [uuidArray(ids), ...access.params]);
      const groups = new Map<string, DeliveryRead[]>(ids.map((id) => [id, []]));
      for (const { parent, ...row } of rows) groups.get(parent)!.push(row as unknown as DeliveryRead);
      return ids.map((id) => groups.get(id)!);
    }),
  };
}

function pageKey(key: PageKey): string {
  return `${key.ownerId}|${key.first}|${key.after}|${key.status ?? ''}`;
}
