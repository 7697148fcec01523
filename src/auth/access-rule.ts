import type { Principal } from './principal.js';

/**
 * The access rule of spec section 3, as one SQL predicate over an organization row: the
 * principal's `org` claim is the row or an ancestor, or its `sub` created the row or an
 * ancestor. Each row carries `path` (ids root..itself) and `owner_subs` (creators along that
 * path), kept by a trigger on insert, so the check reads one row found by primary key, whatever
 * the depth of the tree. Each resource's reads put it in their own `where` clause, so forbidden
 * and missing look the same to the caller: no row.
 */
export function accessPredicate(alias: string, principal: Principal): { sql: string; params: unknown[] } {
  let sql = predicates.get(alias);
  if (sql === undefined) predicates.set(alias, (sql = `(?::uuid = any(${alias}.path) or ?::text = any(${alias}.owner_subs))`));
  return { sql, params: [principal.org, principal.sub] };
}

/** The predicate's text per alias, made once: statements are built around it once (database/sql.ts, perAccess). */
const predicates = new Map<string, string>();
