import type { SqlClient } from './database.js';
import { parseLsn } from './replicas.js';

/**
 * The primary's WAL insert position after a commit (past the commit record even when
 * `synchronous_commit` is off and the record is not yet written out): the Consistency-Token of a write's answer
 * (contract section 17). Writes that finish together share one `pg_current_wal_insert_lsn()`: a writer
 * joins the read not yet sent, and that read is sent after every joiner's commit, so the position
 * it answers is at or past each of them. Under load, one statement serves several writes
 * (docs/scaling.md has the cost with and without).
 *
 * It also judges the tokens reads send back: a token ahead of the primary's own position cannot
 * have come from a write (contract section 17) and would only pin its reads to the primary.
 */
export class WalPosition {
  private next?: Promise<string | null>;
  /**
   * The furthest position read here. The primary never goes back, so a token at or before it is
   * one the primary has passed: known without a statement (every write's token on this instance
   * moves it on).
   */
  private furthest = 0n;

  constructor(private readonly database: SqlClient) {}

  /** Null when the database could not say: the write is done and answered, only its token is lost. */
  afterCommit(): Promise<string | null> {
    this.next ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      // Sent now: a writer arriving from here on may have committed after it, so it waits for the next one.
      this.next = undefined;
      return this.database.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn').then(
        ([row]) => {
          const lsn = row ? parseLsn(row.lsn) : null;
          if (lsn !== null && lsn > this.furthest) this.furthest = lsn;
          return row?.lsn ?? null;
        },
        () => null,
      );
    });
    return this.next;
  }

  /**
   * Whether the primary has written as far as `token`. Without a statement when a position read
   * here already says so; else one read, sent after this call (so after the write that gave the
   * token, if one did) and shared with the writes and tokens of the same moment. Null when the
   * database cannot say: the request goes on, and meets the database's state itself.
   */
  async reached(token: bigint): Promise<boolean | null> {
    if (token <= this.furthest) return true;
    if ((await this.afterCommit()) === null) return null;
    return token <= this.furthest;
  }
}
