import type pg from 'pg';
import type { Logger } from 'pino';
import { Database, type DatabaseOptions, type Gateway, type Transaction } from './database.js';

/**
 * A WAL position (`pg_lsn`) as PostgreSQL writes it, `X/Y` in hex: the Consistency-Token of
 * contract section 17. The OpenAPI document gives the same pattern.
 */
export const LSN_PATTERN = '^([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})$';
const LSN = new RegExp(LSN_PATTERN);

/** The position as a number to compare, or null when `text` is not one. */
export function parseLsn(text: string): bigint | null {
  const match = LSN.exec(text);
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : null;
}

export const REPLICA_STATES = ['starting', 'healthy', 'lagging', 'unreachable'] as const;
export type ReplicaState = (typeof REPLICA_STATES)[number];

export interface ReplicaStatus {
  /** host:port, never the credentials. */
  name: string;
  state: ReplicaState;
  /** How far behind the primary it was at its last check; null before one succeeded. */
  lagSeconds: number | null;
}

export interface ReplicaSettings {
  urls: readonly string[];
  /** DATABASE_REPLICA_MAX_LAG_SECONDS: further behind, a replica is skipped. */
  maxLagSeconds: number;
  /** DATABASE_REPLICA_STICKY_SECONDS: a caller's reads go to the primary this long after its own write. */
  stickySeconds: number;
  /** The connection settings of the primary's pool, but the URL. */
  connection: Omit<DatabaseOptions, 'url'>;
  logger?: Logger;
  /** How often each replica and the primary are asked where they are (1 s). */
  checkEveryMs?: number;
  /** A node:cluster worker: tells the instance's other workers of a caller's write (shared-writes.ts). */
  shareWrite?: (sub: string, at: number) => Promise<void>;
}

/** Who reads, for the choice of a server: the caller, and the token of its last write if it sent one. */
export interface Reader {
  sub?: string;
  token?: bigint;
}

/** Where a read went, for `/metrics` (`db_reads_total{target}`). */
export type ReadTarget = 'primary' | `replica ${string}`;

interface Replica {
  database: Database;
  state: ReplicaState;
  lagSeconds: number | null;
  /** Replayed up to here at its last check. */
  replayed: bigint | null;
}

/** Callers that wrote lately, kept at most this many (the oldest write forgotten first). */
const STICKY_CALLERS = 100_000;
/** A check not answered by then counts as unreachable. */
const CHECK_TIMEOUT_MS = 1_500;

/**
 * The read replicas of contract section 17, beside the primary: each has a pool of its own,
 * and every `checkEveryMs` each replica says how far it has replayed and the primary how far it
 * has written. A replica is behind by the time since the primary first held WAL the replica has
 * not replayed (from the primary's positions of the last moments, on this instance's clock:
 * neither clock skew nor a paused replay nor an idle primary fools it). Healthy replicas serve
 * reads, in turn; one behind by more than `maxLagSeconds`, or that does not answer, is skipped
 * until a later check finds it well again. A read is served by a replica only if it has replayed
 * past the caller's Consistency-Token, and never within `stickySeconds` of the caller's own
 * write on this instance; otherwise, and without replicas, by the primary.
 */
export class ReadReplicas {
  private readonly replicas: Replica[];
  /** The primary's written position as seen at each recent check, oldest first. */
  private readonly primarySeen: Array<{ at: number; lsn: bigint }> = [];
  /**
   * The primary's position at this instance's first check (after its migrations): a replica
   * serves no read before it has replayed this far, however small its lag looks with no history yet.
   */
  private floor?: bigint;
  private readonly lastWrite = new Map<string, number>();
  private turn = 0;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    private readonly primary: Database,
    private readonly settings: ReplicaSettings,
    /** Told of every read's target (the metrics). */
    private readonly counted: (target: ReadTarget) => void = () => undefined,
  ) {
    this.replicas = settings.urls.map((url) => ({
      database: new Database({ ...settings.connection, url, logger: settings.logger }),
      state: 'starting',
      lagSeconds: null,
      replayed: null,
    }));
  }

  /** No replicas: every read on the primary (tests, scripts). */
  static none(primary: Database): ReadReplicas {
    return new ReadReplicas(primary, { urls: [], maxLagSeconds: 10, stickySeconds: 0, connection: {} });
  }

  get size(): number {
    return this.replicas.length;
  }

  /** Checks now, then every `checkEveryMs`; resolves after the first check, so a start serves reads from replicas at once. */
  async start(): Promise<void> {
    if (this.replicas.length === 0) return;
    await this.check();
    this.timer = setInterval(() => void this.check(), this.settings.checkEveryMs ?? 1000);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await Promise.all(this.replicas.map((replica) => replica.database.close()));
  }

  status(): ReplicaStatus[] {
    return this.replicas.map(({ database, state, lagSeconds }) => ({ name: database.server, state, lagSeconds }));
  }

  /** Each replica's start-up check (Database.verify); a replica that cannot be reached now is left to its checks. */
  async verify(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => replica.database.verify()));
  }

  /**
   * A write by `sub` on this instance: its reads stay on the primary for `stickySeconds`, on
   * every worker. Resolves once the other workers have been told.
   */
  async wrote(sub: string): Promise<void> {
    if (this.replicas.length === 0 || this.settings.stickySeconds === 0) return;
    const at = Date.now();
    this.remember(sub, at);
    await this.settings.shareWrite?.(sub, at);
  }

  /** A write by `sub` at `at` (Date.now()), here or on another worker of this instance. */
  remember(sub: string, at: number): void {
    if (this.replicas.length === 0 || this.settings.stickySeconds === 0) return;
    if ((this.lastWrite.get(sub) ?? 0) > at) return;
    this.lastWrite.delete(sub);
    this.lastWrite.set(sub, at);
    if (this.lastWrite.size > STICKY_CALLERS) this.lastWrite.delete(this.lastWrite.keys().next().value as string);
  }

  /** Where this caller's read operation runs its statements. */
  reader(reader: Reader): Gateway {
    const replica = this.pick(reader);
    if (!replica) {
      this.counted('primary');
      return this.primary;
    }
    this.counted(`replica ${replica.database.server}`);
    return new ReplicaRead(replica, this.primary, (failed) => this.lost(replica, failed));
  }

  private pick({ sub, token }: Reader): Replica | undefined {
    if (this.replicas.length === 0) return undefined;
    if (sub !== undefined) {
      const wrote = this.lastWrite.get(sub);
      if (wrote !== undefined && Date.now() - wrote < this.settings.stickySeconds * 1000) return undefined;
    }
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.turn++ % this.replicas.length];
      if (replica.state !== 'healthy') continue;
      if (token !== undefined && (replica.replayed === null || replica.replayed < token)) continue;
      return replica;
    }
    return undefined;
  }

  /** A replica that failed a read as if it were down is skipped from now until a check finds it well. */
  private lost(replica: Replica, error: unknown): void {
    if (replica.state === 'unreachable') return;
    replica.state = 'unreachable';
    this.settings.logger?.warn({ replica: replica.database.server, err: error }, '[database] replica unreachable: reads go elsewhere');
  }

  private check(): Promise<void> {
    this.checking ??= this.checkAll().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkAll(): Promise<void> {
    const now = Date.now();
    try {
      const [row] = await timed(this.primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'));
      const lsn = row ? parseLsn(row.lsn) : null;
      if (lsn !== null) {
        this.primarySeen.push({ at: now, lsn });
        this.floor ??= lsn;
      }
    } catch {
      // The primary's own trouble is the requests' and /readyz's to tell; lags are judged on what was seen.
    }
    const keepSince = now - (this.settings.maxLagSeconds + 5) * 1000;
    while (this.primarySeen.length > 1 && this.primarySeen[0].at < keepSince) this.primarySeen.shift();
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica, now)));
  }

  private async checkReplica(replica: Replica, now: number): Promise<void> {
    const before = replica.state;
    try {
      // A server that is not in recovery (a promoted replica, or the primary named as one) is as far as it has written.
      const [row] = await timed(
        replica.database.query<{ lsn: string | null }>(
          `select (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end)::text as lsn`,
        ),
      );
      replica.replayed = row?.lsn ? parseLsn(row.lsn) : null;
      if (replica.state === 'starting' && (this.floor === undefined || replica.replayed === null || replica.replayed < this.floor)) {
        // Not yet where the primary was when this instance started (nor known to be): no history says how far behind it is.
        replica.lagSeconds = null;
      } else {
        replica.lagSeconds = this.lagOf(replica.replayed, now);
        replica.state = replica.lagSeconds <= this.settings.maxLagSeconds ? 'healthy' : 'lagging';
      }
    } catch (error) {
      replica.state = 'unreachable';
      if (before !== 'unreachable')
        this.settings.logger?.warn({ replica: replica.database.server, err: error }, '[database] replica unreachable');
    }
    if (before !== replica.state && replica.state !== 'unreachable') {
      this.settings.logger?.info(
        { replica: replica.database.server, state: replica.state, lagSeconds: replica.lagSeconds },
        '[database] replica state',
      );
    }
  }

  /**
   * Seconds since the primary first held WAL past `replayed` (0 if it holds none), on this
   * instance's clock. The history goes back `maxLagSeconds + 5` s, so a replica behind all of it
   * reads as that far behind: enough to skip it, and the most this measure says.
   */
  private lagOf(replayed: bigint | null, now: number): number {
    const first = replayed === null ? this.primarySeen[0] : this.primarySeen.find(({ lsn }) => lsn > replayed);
    return first ? (now - first.at) / 1000 : 0;
  }
}

/**
 * A read operation's statements on a replica. One that fails as if the replica were down (or
 * was cancelled for a conflict with its replay) runs again on the primary: a read is safe to
 * repeat. Transactions run on the primary.
 */
class ReplicaRead implements Gateway {
  readonly inTransaction = false;

  constructor(
    private readonly replica: Replica,
    private readonly primary: Database,
    private readonly lost: (error: unknown) => void,
  ) {}

  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.replica.database
      .query<T>(sql, params)
      .catch((error: unknown) => this.orPrimary(error, () => this.primary.query<T>(sql, params)));
  }

  executeSql(text: string, values?: readonly unknown[], name?: string): Promise<pg.QueryResult> {
    return this.replica.database
      .executeSql(text, values, name)
      .catch((error: unknown) => this.orPrimary(error, () => this.primary.executeSql(text, values, name)));
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.primary.transaction(work);
  }

  private orPrimary<T>(error: unknown, again: () => Promise<T>): Promise<T> {
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    // Cancelled by replay, too many connections, a read-only refusal, or this pool's own connections all busy: the replica is up.
    if (['40001', '53300', '25006'].includes(String(code)) || /timeout exceeded when trying to connect/i.test(String(message)))
      return again();
    if (!looksDown(error)) throw error;
    this.lost(error);
    return again();
  }
}

/** Errors of a server that is not there (or went away): refused, reset, shut down, timed out. */
function looksDown(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '57P04'].includes(String(code)) ||
    String(code).startsWith('08') ||
    /Connection terminated|timeout expired/i.test(String(message))
  );
}

function timed<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the check took longer than 1.5 s')), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
