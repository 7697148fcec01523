import type { Principal } from '../auth/principal.js';
import type { SqlClient } from '../database/database.js';
import { EXACT_RANK, TRIGRAM_SET, TRIGRAM_SETTINGS, trigramMatch, trigramRank } from '../database/trigram.js';
import { encodeSearchPosition, type SearchPosition } from '../graphql/search-position.js';
import type { Page } from '../graphql/batch.js';
import { searchScopeAccess, searchScopeEntry, searchScopeOf, type SearchScope } from '../organizations/search-scope.js';
import { isPolicyNumber } from '../values/identifiers.js';
import { policyFilterParameter, policyFilterPredicate, type PolicyFilterKey } from './policy-filters.js';
import { LEDGER_LENGTH, POLICY_SELECT, STATUS_FILTER_WALK, policyRead, type PolicyRead } from './policy.reads.js';

/**
 * Policy search (contract section 23) over the text dictionary of the migration `search`: the
 * texts of the caller's trees that match the query, ranked once per text, then each text's
 * policies newest first, in the order (rank desc, seq desc) the cursor holds.
 *
 * - `candidate`: the matching texts of each scope's tree (GIN over root_id, single, trigrams),
 *   ranked, best first. A one-word query meets one-word texts, a longer one the longer texts.
 * - `walked`: their policies in the search's order, at most POLICY_SEARCH_WALK of them. Each
 *   text's policies are one backward range of the postings' primary key; the planner merges
 *   them with an incremental sort on the rank the candidates already come sorted by, so it
 *   reads texts only until a page is full: a query of two letters matching a hundred names
 *   reads the postings of the first few.
 * - the page: the walked policies within the scope (the whole tree when the scope is its root;
 *   else one probe of `policy_ancestor`), not found before by a better text of theirs, that pass
 *   the filters, and before them the policy whose number is the query, if any.
 * A page that comes back short after a cut walk says where the walk stopped (POLICY_SEARCH_WALK_END),
 * as the filtered lists do (docs/decisions.md, "How the status filter is bounded").
 */
export const POLICY_SEARCH_WALK = STATUS_FILTER_WALK;

const LAST_SEQ = '9223372036854775807';

/** The CTEs every statement of a search shares. Parameters: the scope's, then the query, the position, the filter, the number, the page size. */
const WALK = (scope: SearchScope, access: string) => `with ${searchScopeEntry(scope, access)},
position as (
  select search_text(?) as q, ?::int as after_rank, ?::bigint as after_seq, ?::jsonb as filter, ?::bigint as number, ?::int as size
),
${TRIGRAM_SETTINGS},
candidate as (
  select entry.id as entry, entry.root, t.id as term, t.rank
  from trigram cross join entry cross join position cross join lateral (
    select t.id, ${trigramRank('position.q', 't.term')} as rank from policy_search_term t
    where t.root_id = entry.root and t.single = (strpos(position.q, ' ') = 0) and ${trigramMatch('t.term', 'position.q')} and ${TRIGRAM_SET}
    offset 0
  ) t
  where t.rank <= position.after_rank
  order by t.rank desc
),
walked as (
  select candidate.entry, candidate.root, candidate.term, candidate.rank, w.seq from candidate cross join position cross join lateral (
    select s.policy_seq as seq from policy_search_posting s
    where s.term_id = candidate.term and s.policy_seq < case when candidate.rank < position.after_rank then ${LAST_SEQ} else position.after_seq end
    order by s.policy_seq desc limit ${POLICY_SEARCH_WALK}
  ) w
  order by candidate.rank desc, w.seq desc limit ${POLICY_SEARCH_WALK}
)`;

/**
 * A walked policy found before by another of its texts: a better one, or as good with a smaller id.
 * This and the scope's probe of `policy_ancestor` are scalar subqueries, not EXISTS: PostgreSQL
 * may plan an EXISTS as a hash of the whole table, while a scalar subquery stays a probe of a few
 * index entries per walked policy, whatever the table's size.
 */
const FOUND_BY_A_BETTER_TEXT = `coalesce((
  select true from policy_search_posting other join policy_search_term t on t.id = other.term_id
  where other.policy_seq = walked.seq and other.term_id <> walked.term
    and t.single = (strpos(position.q, ' ') = 0) and ${trigramMatch('t.term', 'position.q')}
    and (${trigramRank('position.q', 't.term')}, -t.id) > (walked.rank, -walked.term)
  limit 1
), false)`;

const PAGE = (scope: SearchScope, predicate: string | null, access: string) => `${WALK(scope, access)}
select page.* from (
  (select ${POLICY_SELECT}, ${LEDGER_LENGTH} as "ledgerLength", ${EXACT_RANK} as rank, p.seq
   from position join policy p on p.number = position.number join organization o on o.id = p.organization_id
   where position.after_rank > ${EXACT_RANK} and exists (select 1 from entry where entry.id = any(o.path))${predicate ? ` and ${predicate}` : ''})
  union all
  (select ${POLICY_SELECT}, ${LEDGER_LENGTH} as "ledgerLength", walked.rank, p.seq
   from walked cross join position cross join lateral (select p.* from policy p where p.seq = walked.seq offset 0) p
   where (walked.entry = walked.root or (select true from policy_ancestor a where a.ancestor_id = walked.entry and a.policy_seq = walked.seq))
     and p.number is distinct from position.number and not ${FOUND_BY_A_BETTER_TEXT}${predicate ? ` and ${predicate}` : ''}
   order by walked.rank desc, walked.seq desc limit (select size from position))
) page order by page.rank desc, page.seq desc limit (select size from position)`;

/** Where a walk that was cut stopped: its last policy (none when it reached the end of the matches). */
const WALK_END = (scope: SearchScope, access: string) => `${WALK(scope, access)}
select walked.rank, walked.seq from walked offset ${POLICY_SEARCH_WALK - 1} limit 1`;

/** Each statement built once per scope, filter shape and access predicate. */
const built = new Map<string, string>();
function statement(kind: 'page' | 'end', scope: SearchScope, filter: PolicyFilterKey | null, access: string): string {
  const predicate = kind === 'page' ? policyFilterPredicate(filter) : null;
  const key = `${kind}|${scope}|${predicate?.shape ?? ''}|${access}`;
  let sql = built.get(key);
  if (sql === undefined) built.set(key, (sql = kind === 'page' ? PAGE(scope, predicate?.sql ?? null, access) : WALK_END(scope, access)));
  return sql;
}

export interface PolicySearch {
  q: string;
  organizationId?: string | null;
  filter: PolicyFilterKey | null;
  first: number;
  after: SearchPosition;
}

/**
 * A page of a policy search, the caller's reach or `organizationId`'s subtree (which the caller
 * has been found to access). Items carry their position (`rank:seq`) as their `seq`. `between`
 * runs before a second statement (the request's deadline).
 */
export async function searchPolicies(
  db: SqlClient,
  principal: Principal,
  search: PolicySearch,
  between: () => void,
): Promise<Page<PolicyRead>> {
  const scope = searchScopeOf(search.organizationId);
  const access = searchScopeAccess(scope, principal, search.organizationId);
  const number = /^[0-9]{1,16}$/.test(search.q) && isPolicyNumber(Number(search.q)) ? Number(search.q) : null;
  const params = [
    ...access.params,
    search.q,
    search.after.rank,
    search.after.seq,
    policyFilterParameter(search.filter),
    number,
    search.first + 1,
  ];
  const rows = await db.query<Record<string, unknown> & { rank: number; seq: string }>(
    statement('page', scope, search.filter, access.sql),
    params,
  );
  const items = rows
    .slice(0, search.first)
    .map(({ rank, seq, ...row }) => ({ node: policyRead(row), seq: encodeSearchPosition({ rank, seq }) }));
  if (rows.length > search.first) return { items, hasNextPage: true };
  between();
  const [end] = await db.query<{ rank: number; seq: string }>(statement('end', scope, null, access.sql), params);
  return end ? { items, hasNextPage: true, endSeq: encodeSearchPosition(end) } : { items, hasNextPage: false };
}
