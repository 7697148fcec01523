import { isRfc3339DateTime, RFC3339_MESSAGE } from '../values/date-time.js';
import type { Gateway, SqlClient } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { badUserInput } from '../errors/errors.js';
import { pageOf } from '../graphql/connection.js';
import { isUuid } from '../values/identifiers.js';
import { AUDIT_ACTIONS } from '../outbox/audit-entry.js';
import { AUDIT_CHAIN_SELECT, AUDIT_ENTRY_SELECT, entryHash, GENESIS, type AuditEntryRead, type ChainedEntryRead } from './audit-chain.js';

/**
 * Reads of the audit log (contract section 21), through the access rule on the organization
 * named: its subtree's entries (those written for it or for a descendant), never another tree's.
 * An organization out of reach reads as missing (null: the caller's 404).
 */

export interface AuditFilters {
  actions: string[] | null;
  actorSub: string | null;
  /** RFC 3339; `since` inclusive, `until` exclusive. */
  since: string | null;
  until: string | null;
}

/** The filters, checked: known actions, RFC 3339 times, an actor's sub of 1 to 256 characters (400 otherwise, every problem at once). */
export function auditFilters(given: {
  actions?: string[] | null;
  actorSub?: string | null;
  since?: string | null;
  until?: string | null;
}): AuditFilters {
  const errors: Array<{ path: string; message: string }> = [];
  const unknown = (given.actions ?? []).filter((action) => !(AUDIT_ACTIONS as readonly string[]).includes(action));
  if (unknown.length > 0) errors.push({ path: 'actions', message: `must be among ${AUDIT_ACTIONS.join(', ')}` });
  for (const name of ['since', 'until'] as const) {
    const value = given[name];
    if (value != null && !isRfc3339DateTime(value)) {
      errors.push({ path: name, message: RFC3339_MESSAGE });
    }
  }
  if (given.actorSub != null && (given.actorSub.length === 0 || given.actorSub.length > 256)) {
    errors.push({ path: 'actorSub', message: 'must be 1 to 256 characters' });
  }
  if (errors.length > 0) throw badUserInput(errors);
  return { actions: given.actions ?? null, actorSub: given.actorSub ?? null, since: given.since ?? null, until: given.until ?? null };
}

/** The organization's tree (its root's id) if the caller may access it. */
async function reachableTree(db: SqlClient, principal: Principal, organizationId: string): Promise<{ id: string; rootId: string } | null> {
  if (!isUuid(organizationId)) return null;
  const access = accessPredicate('o', principal);
  const [row] = await db.query<{ id: string; rootId: string }>(
    `select o.id, o.path[1] as "rootId" from organization o where o.id = ? and ${access.sql}`,
    [organizationId.toLowerCase(), ...access.params],
  );
  return row ?? null;
}

/** Past any entry's seq: where a newest-first walk starts. */
const NEWEST = '9223372036854775807';

/**
 * A page of the subtree's entries, newest first: along its tree's (root_id, seq) index, the
 * subtree a filter on the entry's path. The range is a row comparison over the whole key, in the
 * index's order, as the event pages do (event.reads.ts): with `root_id = ?` and an estimate of
 * few rows (a new table, a generic plan) the planner took a bitmap scan of the whole tree and a
 * sort, 150 ms a page on a tree of 200,000 entries.
 */
const subtreePage = (within: string) => `select ${AUDIT_ENTRY_SELECT}, a.seq from audit_entry a
  where (a.root_id, a.seq) < (?::uuid, ?::bigint) and a.root_id >= ?::uuid and ${within}
    and (?::text[] is null or a.action = any (?::text[]))
    and (?::text is null or a.actor_sub = ?::text)
    and (?::timestamptz is null or a.occurred_at >= ?::timestamptz)
    and (?::timestamptz is null or a.occurred_at < ?::timestamptz)
  order by a.root_id desc, a.seq desc limit ?`;

/**
 * Which of the tree's entries: for a root, all of them (no filter: its estimate, 0.5% of the
 * rows, made the planner scan the whole tree and sort, as above); below it, those whose path
 * names the organization (a filter along the tree's index: a subtree that wrote little in a
 * busy tree walks the tree's entries between two of its own).
 */
const WITHIN_TREE = 'true and ?::uuid is not null';
const WITHIN_SUBTREE = '?::uuid = any (a.path)';
const TREE_PAGE = subtreePage(WITHIN_TREE);
const SUBTREE_PAGE = subtreePage(WITHIN_SUBTREE);

export async function auditPage(
  db: SqlClient,
  principal: Principal,
  organizationId: string,
  filters: AuditFilters,
  first: number,
  after: string,
): Promise<{ items: Array<{ node: AuditEntryRead; seq: string }>; hasNextPage: boolean } | null> {
  const tree = await reachableTree(db, principal, organizationId);
  if (!tree) return null;
  const actions = filters.actions ? `{${filters.actions.join(',')}}` : null;
  const rows = await db.query<AuditEntryRead & { seq: string }>(tree.id === tree.rootId ? TREE_PAGE : SUBTREE_PAGE, [
    tree.rootId,
    after === '0' ? NEWEST : after,
    tree.rootId,
    tree.id,
    actions,
    actions,
    filters.actorSub,
    filters.actorSub,
    filters.since,
    filters.since,
    filters.until,
    filters.until,
    first + 1,
  ]);
  return pageOf<AuditEntryRead>(rows, first);
}

/** Entries an export reads per statement. */
const EXPORT_BATCH = 500;

const exportBatch = (within: string) => `select ${AUDIT_ENTRY_SELECT}, ${AUDIT_CHAIN_SELECT}, a.seq from audit_entry a
  where (a.root_id, a.seq) > (?::uuid, ?::bigint) and a.root_id <= ?::uuid and ${within}
    and (?::timestamptz is null or a.occurred_at >= ?::timestamptz)
    and (?::timestamptz is null or a.occurred_at < ?::timestamptz)
  order by a.root_id, a.seq limit ${EXPORT_BATCH}`;
const TREE_EXPORT_BATCH = exportBatch(WITHIN_TREE);
const SUBTREE_EXPORT_BATCH = exportBatch(WITHIN_SUBTREE);

/** An exported line: the entry, and its place in its tree's chain (null until sealed) to check it offline. */
export type ExportedEntry = AuditEntryRead & { position: number | null; prevHash: string | null };

/**
 * The subtree's entries oldest first, in batches of EXPORT_BATCH, each its own statement after
 * the last one's seq: the caller takes a batch when it has room for it (an async iterator), so
 * an export holds one batch at a time whatever its range. Null: out of reach.
 */
export async function auditExport(
  db: SqlClient,
  principal: Principal,
  organizationId: string,
  range: Pick<AuditFilters, 'since' | 'until'>,
): Promise<AsyncIterable<Array<ExportedEntry>> | null> {
  const tree = await reachableTree(db, principal, organizationId);
  if (!tree) return null;
  const statement = tree.id === tree.rootId ? TREE_EXPORT_BATCH : SUBTREE_EXPORT_BATCH;
  return {
    async *[Symbol.asyncIterator]() {
      let after = '0';
      for (;;) {
        const rows = await db.query<ChainedEntryRead & { seq: string }>(statement, [
          tree.rootId,
          after,
          tree.rootId,
          tree.id,
          range.since,
          range.since,
          range.until,
          range.until,
        ]);
        if (rows.length === 0) return;
        after = rows[rows.length - 1].seq;
        yield rows.map(({ seq: _seq, rootId: _rootId, position, prevHash, ...entry }) => ({
          ...entry,
          position: position === null ? null : Number(position),
          prevHash,
        }));
        if (rows.length < EXPORT_BATCH) return;
      }
    },
  };
}

export interface AuditVerification {
  ok: boolean;
  /** The sealed entries checked (up to and including the first broken one). */
  checked: number;
  firstBrokenId: string | null;
}

const VERIFY_BATCH = 1000;

const CHAIN_BATCH = `select ${AUDIT_ENTRY_SELECT}, ${AUDIT_CHAIN_SELECT} from audit_entry a
  where a.root_id = ?::uuid and a.position is not null and a.position > ?::bigint
  order by a.position limit ${VERIFY_BATCH}`;

/**
 * Walks a tree's chain from its start (position 1 after GENESIS, or retention's anchor) through
 * its sealed entries in position order: an entry breaks the chain when its position is not the
 * next, its prev_hash is not the hash before it, or its hash is not the hash of its content. A
 * changed entry breaks at itself; a removed one at the entry after it; a reordered one where the
 * order changed. Entries not sealed yet (the last seconds' writes) are not checked. Null: not a
 * root the caller may access; a reachable organization that is not a root is 400.
 */
export async function verifyAuditChain(gateway: Gateway, principal: Principal, organizationId: string): Promise<AuditVerification | null> {
  // One snapshot for the walk: retention moving the anchor and deleting entries meanwhile would
  // otherwise show a gap that is not there.
  return gateway.transaction(async (db) => {
    await db.query('set transaction isolation level repeatable read, read only');
    return verifyWithin(db, principal, organizationId);
  });
}

async function verifyWithin(db: SqlClient, principal: Principal, organizationId: string): Promise<AuditVerification | null> {
  const tree = await reachableTree(db, principal, organizationId);
  if (!tree) return null;
  if (tree.rootId !== tree.id) {
    throw badUserInput([{ path: 'organizationId', message: "must be a root organization: a chain is a whole tree's" }]);
  }
  const [anchor] = await db.query<{ position: string; hash: string }>(
    'select position::text as position, hash from audit_anchor where root_id = ?::uuid',
    [tree.id],
  );
  let position = anchor ? Number(anchor.position) : 0;
  let hash = anchor?.hash ?? GENESIS;
  let checked = 0;
  for (;;) {
    const rows = await db.query<ChainedEntryRead>(CHAIN_BATCH, [tree.id, String(position)]);
    for (const row of rows) {
      checked++;
      const at = Number(row.position);
      if (at !== position + 1 || row.prevHash !== hash || entryHash(row, at, row.prevHash) !== row.hash) {
        return { ok: false, checked, firstBrokenId: row.id };
      }
      position = at;
      hash = row.hash;
    }
    if (rows.length < VERIFY_BATCH) return { ok: true, checked, firstBrokenId: null };
  }
}
