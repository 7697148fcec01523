import DataLoader from 'dataloader';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import type { SqlClient } from '../database/database.js';
import { uuidArray } from '../database/sql.js';
import type { Deadline } from '../limits/deadline.js';

/** What a batch is given with its keys: the request's gateway, caller and deadline. */
export interface BatchScope {
  /** The request's SQL gateway: the primary's, or the replica a read-only operation may use. */
  readonly db: SqlClient;
  /** The caller, or the request's 401 thrown: batches apply the access rule. */
  principal(): Principal;
  /** Checked before each batch; a batch of two statements checks it again before its second. */
  readonly deadline: Deadline;
}

/**
 * A feature's batched read, handed to the kernel as grafast's `loadOne` is handed its callback:
 * the loads of one request in one tick become one call, which answers a value per key, in the
 * keys' order. The object is the batch's identity (one loader per request and batch): declare
 * it once, beside its statement in the feature's `*.reads.ts`.
 */
export interface Batch<K, V> {
  read(keys: readonly K[], scope: BatchScope): Promise<readonly V[]>;
  /** For keys that are objects: the string equal keys share (DataLoader's cacheKeyFn). */
  readonly cacheKey?: (key: K) => string;
}

/**
 * A request's batch loaders, behind its context's `load(batch, key)`: what the graph reaches
 * beyond the root fields, so a list of 50 policies with their organizations and charges costs
 * a fixed few statements. A loader is made on the request's first load of its batch (a simple
 * read makes none: a measured gain, docs/benchmark.md). Once the request's deadline has passed
 * no batch starts a statement (the answer, a 503, has been sent already).
 */
export class RequestBatches {
  // Each batch's own loader: the key's types are the loader's (hence the one cast in load).
  private readonly loaders = new Map<Batch<never, unknown>, DataLoader<never, unknown, unknown>>();

  constructor(private readonly scope: BatchScope) {}

  load<K, V>(batch: Batch<K, V>, key: K): Promise<V> {
    let loader = this.loaders.get(batch) as DataLoader<K, V, unknown> | undefined;
    if (!loader) {
      const { scope } = this;
      // Async, so a passed deadline rejects the loads with its own 503 (DataLoader turns a throw
      // of the batch function itself into a TypeError of its own).
      loader = new DataLoader<K, V, unknown>(
        async (keys) => {
          scope.deadline.assertOpen();
          return batch.read(keys, scope);
        },
        { cacheKeyFn: batch.cacheKey },
      );
      this.loaders.set(batch, loader);
    }
    return loader.load(key);
  }
}

type Row = Record<string, unknown>;

/**
 * Rows of a child table by their parent's id (selected as `parent`), in the order the statement
 * gives. A plain statement takes the ids alone: its rows are reached only through a parent that
 * passed the access rule (an organization's owners, a policy's charges). A statement built
 * around the access predicate (over `o`) takes its parameters after the ids.
 */
export function rowsByParent<T>(statement: string | ((access: string) => string)): Batch<string, T[]> {
  return {
    async read(ids, { db, principal }) {
      let rows: Array<Row & { parent: string }>;
      if (typeof statement === 'string') rows = await db.query(statement, [uuidArray(ids)]);
      else {
        const access = accessPredicate('o', principal());
        rows = await db.query(statement(access.sql), [uuidArray(ids), ...access.params]);
      }
      const groups = new Map<string, T[]>(ids.map((id) => [id, []]));
      for (const { parent, ...row } of rows) groups.get(parent)?.push(row as T);
      return ids.map((id) => groups.get(id) ?? []);
    },
  };
}

/** A page of a connection: the rows with their positions, and whether more follow. */
export interface Page<T> {
  items: Array<{ node: T; seq: string }>;
  hasNextPage: boolean;
  /**
   * Where the next page continues when it is past the last item: a filtered page that stopped
   * walking before it was full (policy.reads.ts, STATUS_FILTER_WALK).
   */
  endSeq?: string;
}

export interface PageKey<Filter extends string = never> {
  /** The row whose children are paged (an organization's children or policies, a policy's transactions). */
  ownerId: string;
  first: number;
  /** Continue after this position (`seq`); '0' for the first page. */
  after: string;
  /** Only the rows this filter keeps (policies: those in a status today, spec section 14). */
  filter?: Filter | null;
}

/**
 * Pages of a connection, every owner's at once: one statement per distinct (first, after,
 * filter), applying the access rule (over `o`). Its parameters: the owner ids, the access
 * rule's, the position to continue after, the page size + 1, and the filter's `params`; its rows carry `owner` and `seq`
 * (and `rank`, dropped). With a filter, a page that came back short may have stopped walking
 * before the end of its list: `walkEnd` (parameters: the owner ids, the access rule's, the
 * position) then finds, for those owners only, where the walk stopped, and the page says that
 * more follow from there.
 */
export function pages<T, Filter extends string = never>(statements: {
  page: (access: string, filter: Filter | null) => string;
  /** The filter's values, as parameters after the page size (a filter whose values are not in its statement's text). */
  params?: (filter: Filter | null) => readonly unknown[];
  /** A row as the node it is (the columns are the node's unless given). */
  view?: (row: Row) => T;
  walkEnd?: (access: string) => string;
}): Batch<PageKey<Filter>, Page<T>> {
  const { page, params = () => [], view = (row: Row) => row as T, walkEnd } = statements;
  return {
    cacheKey: pageKey,
    async read(keys, { db, principal, deadline }) {
      const answered: Array<Page<T>> = [];
      // The keys' indexes, grouped by what one statement reads for all of them.
      const groups = new Map<string, number[]>();
      keys.forEach((key, index) => {
        const group = `${key.first}|${key.after}|${key.filter ?? ''}`;
        groups.set(group, [...(groups.get(group) ?? []), index]);
      });
      for (const group of groups.values()) {
        const { first, after, filter = null } = keys[group[0]];
        const access = accessPredicate('o', principal());
        const rows = await db.query<Row & { owner: string; seq: string }>(page(access.sql, filter), [
          uuidArray(group.map((index) => keys[index].ownerId)),
          ...access.params,
          after,
          first + 1,
          ...params(filter),
        ]);
        const short: number[] = [];
        for (const index of group) {
          const mine = rows.filter((row) => row.owner === keys[index].ownerId);
          answered[index] = {
            items: mine.slice(0, first).map(({ owner: _owner, seq, rank: _rank, ...row }) => ({ node: view(row), seq: String(seq) })),
            hasNextPage: mine.length > first,
          };
          if (mine.length <= first) short.push(index);
        }
        if (filter && walkEnd && short.length > 0) {
          deadline.assertOpen();
          const ends = await db.query<{ owner: string; seq: string }>(walkEnd(access.sql), [
            uuidArray(short.map((index) => keys[index].ownerId)),
            ...access.params,
            after,
          ]);
          // One key per owner in a group: the keys differ only by owner there.
          for (const end of ends) {
            for (const index of short) {
              if (keys[index].ownerId !== end.owner) continue;
              answered[index].hasNextPage = true;
              answered[index].endSeq = String(end.seq);
            }
          }
        }
      }
      return answered;
    },
  };
}

function pageKey(key: PageKey<string>): string {
  return `${key.ownerId}|${key.first}|${key.after}|${key.filter ?? ''}`;
}
