import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';

/**
 * Where a search looks (contract section 23), as the CTE `entry (id, root)`: the organizations
 * whose subtrees it reads, each with the root of its tree.
 * - `reach`: the caller's entry points, its org claim's organization and each one its `sub`
 *   created whose parent it may not access (contract section 10, "the tops of what I can see";
 *   found as the events list finds them, docs/access-rule.md, but among the sub's organizations
 *   only those whose parent it did not create (`owner_top`, migration `search`: the others'
 *   parents are in reach), so a sub that made a whole tree costs one index entry, not the tree).
 *   Every organization the caller may access lies under exactly one of them, so nothing out of
 *   reach is ever read.
 * - `subtree`: one organization, `organizationId`, if the caller may access it.
 * The access rule is part of each, so the statement is safe on its own.
 */
export type SearchScope = 'reach' | 'subtree';

const ENTRY: Record<SearchScope, (access: string) => string> = {
  reach: (parentAccess) => `entry as (
  select o.id, o.path[1] as root from organization o left join organization parent on parent.id = o.parent_id
  where (o.id = ?::uuid or (o.owner_sub = ? and o.owner_top)) and (parent.id is null or not coalesce(${parentAccess}, false))
)`,
  subtree: (access) => `entry as (select o.id, o.path[1] as root from organization o where o.id = ?::uuid and ${access})`,
};

/** The alias the scope's access predicate is written over: the entry point's parent, or the organization itself. */
const ALIAS: Record<SearchScope, string> = { reach: 'parent', subtree: 'o' };

/** The scope of a search with this `organizationId` (none: the caller's reach). */
export const searchScopeOf = (organizationId: string | null | undefined): SearchScope => (organizationId == null ? 'reach' : 'subtree');

/** The CTE's text for the access predicate's (searchScopeAccess). */
export const searchScopeEntry = (scope: SearchScope, access: string): string => ENTRY[scope](access);

/** The access predicate the scope's CTE is built around, and the CTE's parameters (first in the statement). */
export function searchScopeAccess(
  scope: SearchScope,
  principal: Principal,
  organizationId: string | null | undefined,
): { sql: string; params: unknown[] } {
  const access = accessPredicate(ALIAS[scope], principal);
  const head = scope === 'reach' ? [principal.org, principal.sub] : [String(organizationId).toLowerCase()];
  return { sql: access.sql, params: [...head, ...access.params] };
}
