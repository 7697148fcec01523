import type { Principal } from '../auth/principal.js';
import type { SqlClient } from '../database/database.js';
import { TRIGRAM_SET, TRIGRAM_SETTINGS, trigramMatch, trigramRank } from '../database/trigram.js';
import type { Page } from '../graphql/batch.js';
import { encodeSearchPosition, type SearchPosition } from '../graphql/search-position.js';
import { ORGANIZATION_SELECT, type OrganizationRead } from './organization.reads.js';
import { searchScopeAccess, searchScopeEntry, searchScopeOf, type SearchScope } from './search-scope.js';

/**
 * Organization search by `legalName` (contract section 23): the organizations of the scope's
 * subtrees whose legal name matches, best match first, then newest, from one GIN index over (the
 * root of the row's tree, the legal name's trigrams) (migration `search`): each entry point reads
 * the matches of its own tree, keeps those below it, and every match in scope is ranked; another
 * tenant's organizations are never read. Legal names are mostly an organization's own, so a
 * dictionary like the policies' (policy-search.ts) would hold about as many texts as
 * organizations: here the rows are ranked directly. The cursor is the rank and `seq`; rows are
 * compared with it as a pair, so an organization created since ranks where it ranks and moves
 * none of those already there.
 * Parameters: the scope's, the query, the position (rank, seq), the page size.
 */
const SEARCH = (scope: SearchScope, access: string) => `with ${searchScopeEntry(scope, access)},
position as (select search_text(?) as q, ?::int as after_rank, ?::bigint as after_seq, ?::int as size),
${TRIGRAM_SETTINGS}
select ${ORGANIZATION_SELECT}, o.rank, o.seq
from trigram cross join position cross join entry cross join lateral (
  select o.*, ${trigramRank('position.q', 'o.legal_name')} as rank from organization o
  where o.path[1] = entry.root and entry.id = any(o.path) and ${trigramMatch('o.legal_name', 'position.q')} and ${TRIGRAM_SET}
  offset 0
) o
where (o.rank, o.seq) < (position.after_rank, position.after_seq)
order by o.rank desc, o.seq desc limit (select size from position)`;

const built = new Map<string, string>();
function statement(scope: SearchScope, access: string): string {
  const key = `${scope}|${access}`;
  let sql = built.get(key);
  if (sql === undefined) built.set(key, (sql = SEARCH(scope, access)));
  return sql;
}

export interface OrganizationSearch {
  q: string;
  organizationId?: string | null;
  first: number;
  after: SearchPosition;
}

/** A page of an organization search, the caller's reach or `organizationId`'s subtree; items carry their position (`rank:seq`). */
export async function searchOrganizations(
  db: SqlClient,
  principal: Principal,
  search: OrganizationSearch,
): Promise<Page<OrganizationRead>> {
  const scope = searchScopeOf(search.organizationId);
  const access = searchScopeAccess(scope, principal, search.organizationId);
  const rows = await db.query<OrganizationRead & { rank: number; seq: string }>(statement(scope, access.sql), [
    ...access.params,
    search.q,
    search.after.rank,
    search.after.seq,
    search.first + 1,
  ]);
  return {
    items: rows.slice(0, search.first).map(({ rank, seq, ...node }) => ({ node, seq: encodeSearchPosition({ rank, seq }) })),
    hasNextPage: rows.length > search.first,
  };
}
