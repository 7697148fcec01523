import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import type { SqlClient } from '../database/database.js';
import type { Page } from '../graphql/batch.js';
import { policyFilterParameter, policyFilterPredicate, type PolicyFilterKey } from './policy-filters.js';
import { LEDGER_LENGTH, POLICY_SELECT, STATUS_FILTER_WALK, policyRead, type PolicyRead } from './policy.reads.js';

/**
 * A page of the policies with this `internalID` (the integrator's own key, contract section 18)
 * among those the caller may access, in creation order, looked up per entry point (issue 37,
 * L4): the caller's entry points (its org claim's organization and the ones its `sub` created
 * whose parent it may not access, found among its `owner_top` ones: search-scope.ts), then per entry
 * point one range of `policy_ancestor_internal_id_index` (ancestor_id, internal_id, policy_seq),
 * merged by sequence. Every accessible policy lies under exactly one entry point, so nothing out
 * of reach is read: another tenant's policies with the same key are never touched, and the
 * lookup's time says nothing of them. The range is a row comparison over the whole key (why:
 * ACCESSIBLE_EVENTS_PAGE in events/event.reads.ts).
 *
 * Unfiltered, each range is at most a page long. With filters (policy-filters.ts, contract
 * section 23) the walk is the lists' (docs/decisions.md, "How the status filter is bounded"):
 * at most STATUS_FILTER_WALK policies in order, then the filters; a page that comes back short
 * after a cut walk says where the walk stopped. Each walked policy is read by `policy_seq_unique`
 * in a lateral the planner cannot flatten (`offset 0`): flattened, a walk of 1,000 was joined to
 * the whole table by a hash in the generic plan of a small database.
 * Parameters: org, sub, the parent's access rule's, the key, the position to continue after, the
 * page size + 1, the filter's values.
 */
const WALK = (parentAccess: string, length: string) => `with entry as (
  select o.id from organization o left join organization parent on parent.id = o.parent_id
  where (o.id = ?::uuid or (o.owner_sub = ? and o.owner_top)) and (parent.id is null or not coalesce(${parentAccess}, false))
), position as (select ?::text as key, ?::bigint as after, ?::int as size, ?::jsonb as filter),
walked as (
  select found.policy_seq as seq from entry cross join position cross join lateral (
    select a.policy_seq from policy_ancestor a
    where (a.ancestor_id, a.internal_id, a.policy_seq) > (entry.id, position.key, position.after)
      and (a.ancestor_id, a.internal_id) <= (entry.id, position.key) and a.internal_id is not null
    order by a.ancestor_id, a.internal_id, a.policy_seq limit ${length}
  ) found
  order by found.policy_seq limit ${length}
)`;

const PAGE = (
  parentAccess: string,
  predicate: string | null,
) => `${WALK(parentAccess, predicate ? String(STATUS_FILTER_WALK) : '(select size from position)')}
select ${POLICY_SELECT}, ${LEDGER_LENGTH} as "ledgerLength", p.seq
from walked cross join position cross join lateral (select p.* from policy p where p.seq = walked.seq offset 0) p${predicate ? `\nwhere ${predicate}` : ''}
order by p.seq limit (select size from position)`;

const WALK_END = (parentAccess: string) => `${WALK(parentAccess, String(STATUS_FILTER_WALK))}
select walked.seq from walked offset ${STATUS_FILTER_WALK - 1} limit 1`;

const built = new Map<string, string>();
function statement(kind: 'page' | 'end', parentAccess: string, filter: PolicyFilterKey | null): string {
  const predicate = policyFilterPredicate(filter);
  const key = `${kind}|${predicate?.shape ?? ''}|${parentAccess}`;
  let sql = built.get(key);
  if (sql === undefined) built.set(key, (sql = kind === 'page' ? PAGE(parentAccess, predicate?.sql ?? null) : WALK_END(parentAccess)));
  return sql;
}

/** The unfiltered statement, for `npm run explain` and the plan's test. */
export const POLICIES_BY_INTERNAL_ID = (parentAccess: string) => statement('page', parentAccess, null);

/** The page; `between` runs before a second statement (the request's deadline). */
export async function policiesByInternalId(
  db: SqlClient,
  principal: Principal,
  lookup: { internalID: string; filter: PolicyFilterKey | null; first: number; after: string },
  between: () => void,
): Promise<Page<PolicyRead>> {
  const { sql, params } = accessPredicate('parent', principal);
  const values = [
    principal.org,
    principal.sub,
    ...params,
    lookup.internalID,
    lookup.after,
    lookup.first + 1,
    policyFilterParameter(lookup.filter),
  ];
  const rows = await db.query<Record<string, unknown> & { seq: string }>(statement('page', sql, lookup.filter), values);
  const items = rows.slice(0, lookup.first).map(({ seq, ...row }) => ({ node: policyRead(row), seq: String(seq) }));
  if (rows.length > lookup.first || lookup.filter === null) return { items, hasNextPage: rows.length > lookup.first };
  between();
  const [end] = await db.query<{ seq: string }>(statement('end', sql, lookup.filter), values);
  return end ? { items, hasNextPage: true, endSeq: String(end.seq) } : { items, hasNextPage: false };
}
