import type { Logger } from 'pino';
import type { Gateway } from '../database/database.js';
import { uuidArray } from '../database/sql.js';
import { AUDIT_CHAIN_SELECT, AUDIT_ENTRY_SELECT, entryHash, GENESIS, type ChainedEntryRead } from './audit-chain.js';

/**
 * The sealer (contract section 21, docs/decisions.md "The audit log"): entries are written
 * unsealed by the writes themselves (no lock, no chain head to contend for at commit), and a
 * timer on every instance seals them within seconds, one instance at a time (a transaction-level
 * advisory lock, tried, never waited for). A pass takes the unsealed entries whose writing
 * transaction has ended (`xid` below the snapshot's xmin: none of them can still commit or be
 * joined by an older one), in insertion order, gives each the next position of its tree's chain
 * and hashes it after the one before. An entry whose transaction is still running waits for the
 * next pass: the chain never goes past an entry that may yet commit.
 */

/** The advisory lock a sealing pass holds (its transaction's): one sealer at a time across instances. */
const SEAL_LOCK = 7_215_004_021;

/** Entries sealed by one transaction. */
const SEAL_BATCH = 2000;

const SEALABLE = `select ${AUDIT_ENTRY_SELECT}, ${AUDIT_CHAIN_SELECT} from audit_entry a
  where a.hash is null and a.xid < pg_snapshot_xmin(pg_current_snapshot())
  order by a.seq limit ?`;

/** Each tree's chain head: its last sealed entry, else its retention anchor, else none (position 0). */
const HEADS = `select r.root_id as "rootId", coalesce(e.position, x.position, 0)::text as position, coalesce(e.hash, x.hash) as hash
  from unnest(?::uuid[]) r (root_id)
  left join lateral (select position, hash from audit_entry where root_id = r.root_id and position is not null order by position desc limit 1) e on true
  left join audit_anchor x on x.root_id = r.root_id`;

const SEAL = `update audit_entry a set position = v.position, prev_hash = v.prev_hash, hash = v.hash
  from json_to_recordset(?::json) v (id uuid, position bigint, prev_hash text, hash text)
  where a.id = v.id and a.hash is null`;

/**
 * Seals what can be sealed now; returns how many entries it sealed (0 when another instance
 * holds the lock). Every batch is a transaction of its own.
 */
export async function sealPending(db: Gateway): Promise<number> {
  let total = 0;
  for (;;) {
    const sealed = await db.transaction(async (tx) => {
      const [{ locked }] = await tx.query<{ locked: boolean }>('select pg_try_advisory_xact_lock(?::bigint) as locked', [SEAL_LOCK]);
      if (!locked) return 0;
      const rows = await tx.query<ChainedEntryRead>(SEALABLE, [SEAL_BATCH]);
      if (rows.length === 0) return 0;
      const roots = [...new Set(rows.map((row) => row.rootId))];
      const heads = new Map(
        (await tx.query<{ rootId: string; position: string; hash: string | null }>(HEADS, [uuidArray(roots)])).map((head) => [
          head.rootId,
          { position: Number(head.position), hash: head.hash ?? GENESIS },
        ]),
      );
      const seals = rows.map((row) => {
        const head = heads.get(row.rootId) ?? { position: 0, hash: GENESIS };
        const position = head.position + 1;
        const hash = entryHash(row, position, head.hash);
        heads.set(row.rootId, { position, hash });
        return { id: row.id, position, prev_hash: head.hash, hash };
      });
      await tx.query(SEAL, [JSON.stringify(seals)]);
      return rows.length;
    });
    total += sealed;
    if (sealed < SEAL_BATCH) return total;
  }
}

/** Retention: deletes each tree's sealed entries older than `days` (a prefix of its chain), moving its anchor. */
export async function retainAuditEntries(db: Gateway, days: number): Promise<number> {
  const [{ removed }] = await db.query<{ removed: string }>(
    `select audit_entry_retain(now() - make_interval(days => ?::int))::text as removed`,
    [days],
  );
  return Number(removed);
}

export interface AuditSealerSettings {
  database: Gateway;
  logger: Logger;
  /** AUDIT_SEAL_SECONDS: how often this instance tries a pass. */
  sealSeconds: number;
  /** AUDIT_RETENTION_DAYS. */
  retentionDays: number;
  /** How often this instance runs retention (after a pass), in milliseconds: hourly. */
  retentionEveryMs?: number;
}

/** Seals every `sealSeconds` and runs retention at start and hourly, until stopped. */
export function startAuditSealer(settings: AuditSealerSettings): { stop(): Promise<void> } {
  const { database, logger, sealSeconds, retentionDays, retentionEveryMs = 3_600_000 } = settings;
  let lastRetention = Number.NEGATIVE_INFINITY;
  let running: Promise<void> | null = null;
  let stopped = false;
  const pass = async () => {
    await sealPending(database);
    if (Date.now() - lastRetention >= retentionEveryMs) {
      lastRetention = Date.now();
      const removed = await retainAuditEntries(database, retentionDays);
      if (removed > 0) logger.info({ removed, retentionDays }, 'audit log retention deleted old entries');
    }
  };
  // One pass at a time on this instance: a tick while one runs is skipped.
  const tick = () => {
    if (stopped || running) return;
    running = pass()
      .catch((error: unknown) => logger.warn({ err: error }, 'the audit sealer could not seal'))
      .finally(() => {
        running = null;
      });
  };
  tick();
  const timer = setInterval(tick, sealSeconds * 1000).unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
