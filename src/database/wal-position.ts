import type { SqlClient } from './database.js';

/**
 * The primary's WAL insert position after a commit (past the commit record even when
 * `synchronous_commit` is off and the record is not yet written out): the Consistency-Token of a write's answer
 * (contract section 17). Writes that finish together share one `pg_current_wal_insert_lsn()`: a writer
 * joins the read not yet sent, and that read is sent after every joiner's commit, so the position
 * it answers is at or past each of them. Under load, one statement serves several writes
 * (docs/scaling.md has the cost with and without).
 */
export class WalPosition {
  private next?: Promise<string | null>;

  constructor(private readonly database: SqlClient) {}

  /** Null when the database could not say: the write is done and answered, only its token is lost. */
  afterCommit(): Promise<string | null> {
    this.next ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      // Sent now: a writer arriving from here on may have committed after it, so it waits for the next one.
      this.next = undefined;
      return this.database.query<{ lsn: string }>('select pg_current_wal_insert_lsn()::text as lsn').then(
        ([row]) => row?.lsn ?? null,
        () => null,
      );
    });
    return this.next;
  }
}
