import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { Organization } from '../organizations/organization.entity.js';
import { Policy } from '../policies/policy.entity.js';

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
 * Per-request batch loaders for what the graph reaches beyond the root fields. Every one
 * applies the access rule in its SQL, and loads that arrive in the same tick become one
 * statement, so a list of 50 policies with their organizations costs a fixed few queries.
 */
export interface Loaders {
  organization: DataLoader<string, Organization | null>;
  children: DataLoader<PageKey, Page<Organization>, string>;
  policies: DataLoader<PageKey, Page<Policy>, string>;
}

type Row = Record<string, unknown> & { seq: string };

export function createLoaders(em: EntityManager, principal: () => Principal): Loaders {
  // Inside the request's transaction when there is one (an idempotent create reads its own writes).
  const run = (sql: string, params: unknown[]) => em.getConnection().execute<Row[]>(sql, params, 'all', em.getTransactionContext());
  const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;

  const organization = new DataLoader<string, Organization | null>(async (ids) => {
    const access = accessPredicate('o', principal());
    const rows = await run(`select o.* from organization o where o.id = any(?::uuid[]) and ${access.sql}`, [uuidArray(ids), ...access.params]);
    const found = new Map(rows.map((row) => [row.id as string, em.map(Organization, row)]));
    return ids.map((id) => found.get(id) ?? null);
  });

  /** One statement per distinct (first, after): a window function pages every owner at once. */
  const pager = <T extends object>(entity: new () => T, query: (access: { sql: string }) => string) =>
    new DataLoader<PageKey, Page<T>, string>(
      async (keys) => {
        const groups = new Map<string, PageKey[]>();
        for (const key of keys) groups.set(`${key.first}|${key.after}`, [...(groups.get(`${key.first}|${key.after}`) ?? []), key]);
        const pages = new Map<string, Page<T>>();
        for (const group of groups.values()) {
          const { first, after } = group[0];
          const access = accessPredicate('o', principal());
          const rows = await run(query(access), [uuidArray(group.map((key) => key.ownerId)), ...access.params, after, first + 1]);
          for (const key of group) {
            const mine = rows.filter((row) => row.owner_id === key.ownerId);
            pages.set(pageKey(key), {
              items: mine.slice(0, first).map((row) => ({ node: em.map(entity, row), seq: String(row.seq) })),
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
      Organization,
      (access) => `select * from (
        select o.*, o.parent_id as owner_id, row_number() over (partition by o.parent_id order by o.seq) as rank
        from organization o
        where o.parent_id = any(?::uuid[]) and ${access.sql} and o.seq > ?::bigint
      ) page where rank <= ? order by owner_id, seq`,
    ),
    policies: pager(
      Policy,
      (access) => `select * from (
        select p.*, p.organization_id as owner_id, row_number() over (partition by p.organization_id order by p.seq) as rank
        from policy p join organization o on o.id = p.organization_id
        where p.organization_id = any(?::uuid[]) and ${access.sql} and p.seq > ?::bigint
      ) page where rank <= ? order by owner_id, seq`,
    ),
  };
}

function pageKey(key: PageKey): string {
  return `${key.ownerId}|${key.first}|${key.after}`;
}
