import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import { inStatementSpan } from './statement-spans.js';
import { positional } from './sql.js';

/**
 * What statements are sent to: the database (each statement on a connection of the pool) or one
 * transaction (every statement on its connection). The service's own SQL goes through `query`;
 * `executeSql` is for the SQL of libraries, written with `$1` placeholders already.
 */
export interface SqlClient {
  /** Whether statements run in one transaction (a `Transaction`), or each on its own. */
  readonly inTransaction: boolean;
  /**
   * One statement, values bound as parameters (`?` placeholders), as a named prepared statement:
   * after its first use on a connection only the statement's name and values travel, not its
   * text, and PostgreSQL keeps the parse. On the hot reads that halves the cost of talking to
   * the database (docs/benchmark.md).
   */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * A statement as a library writes it: `$n` placeholders, and a statement name if it gives one
   * (rate-limiter-flexible does). pg-boss's `db` option takes an object with this method, so a
   * job is enqueued in the caller's transaction.
   */
  executeSql(text: string, values?: readonly unknown[], name?: string): Promise<pg.QueryResult>;
}

/**
 * What the request context and the writes hold: statements, and transactions. The primary's
 * `Database` is one; a read routed to a replica (replicas.ts) is another, whose transactions
 * still run on the primary.
 */
export interface Gateway extends SqlClient {
  readonly inTransaction: false;
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

/** The statements of one transaction, on its connection: what `Database.transaction` gives its work. */
export interface Transaction extends SqlClient {
  readonly inTransaction: true;
}

/** A statement that went to the database, told to `onStatement` listeners (the tests, the debug log). */
export interface SentStatement {
  /** As sent: `$n` placeholders. */
  text: string;
  values: readonly unknown[];
  durationMs: number;
  error?: unknown;
}

/** The pool's connections: checked out, idle, and callers waiting for one. */
export interface PoolState {
  inUse: number;
  idle: number;
  waiting: number;
}

export interface DatabaseOptions {
  url: string;
  /** PostgreSQL statement_timeout, and the idle-in-transaction timeout of abandoned transactions. */
  statementTimeoutMs?: number;
  /** PostgreSQL startup options, e.g. `-c org_policy.quota_policies_per_tree=1000` (limits/quotas.ts). */
  options?: string;
  /** Connections at most (10). */
  max?: number;
  /**
   * Named prepared statements (the default). Off, statements travel unnamed, each parsed again:
   * for a pooler in transaction mode, where the next statement may meet another server connection.
   * Off, no startup parameter is sent either (PgBouncer refuses them): the statement timeouts and
   * the options must be the role's own settings, which `verify` checks.
   */
  preparedStatements?: boolean;
  /** Pool errors, and at debug level every statement's text (never its values). */
  logger?: Logger;
}

/** A connection attempt gives up after this; a caller waits this long for a connection of a full pool. */
const CONNECT_TIMEOUT_MS = 2_000;
const ACQUIRE_TIMEOUT_MS = 3_000;

/**
 * node-postgres' Client with the connect timeout: pg-pool hands its own options, whose
 * connectionTimeoutMillis is the wait for a connection of a full pool, to each new client.
 */
class ServiceClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
}

/**
 * Column values as the reads expect them (MikroORM 6 set the same parsers on its connections):
 * dates, timestamps and intervals as PostgreSQL's text (`YYYY-MM-DD` for a date), arrays of
 * them as arrays of text. bigint and numeric stay text, pg's default. On this pool only: pg's
 * global parsers, which pg-boss's pool uses, are left alone.
 */
function columnTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  const text = (value: string) => value;
  // text[]'s parser (oid 1009, not among pg's named builtins): an array of text, nulls kept.
  const textArray = pg.types.getTypeParser(1009 as Parameters<typeof pg.types.getTypeParser>[0]) as (value: string) => unknown;
  for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, text); // date, timestamp, timestamptz, interval
  for (const oid of [1182, 1115, 1185, 1187]) types.setTypeParser(oid, textArray); // their arrays
  return types;
}

/**
 * The service's one pool of PostgreSQL connections and its one way to send SQL (the review's
 * change 5; grafast's node-postgres adaptor is the model). One per process, opened by
 * service.ts. A lost database fails fast (connect 2 s, a free connection waited for 3 s), so
 * callers answer 503 in seconds (errors/safe-errors.ts) rather than hang.
 *
 * Every statement goes through `send`: the pool is a parameter of the sending, not of the
 * callers. A read replica has a `Database` of its own; which one a read uses is chosen per
 * request (replicas.ts, the request context's `db`).
 */
export class Database implements Gateway {
  /** The database's name (the URL's path), as traces name it. */
  readonly name: string;
  readonly inTransaction = false;
  /** Where the connections go: host and port, never the credentials (metrics, /readyz, logs). */
  readonly server: string;
  private readonly pool: pg.Pool;
  private readonly prepared: boolean;
  /** The session settings the service needs (the statement timeouts, the trees' limits), by name. */
  private readonly settings: ReadonlyMap<string, string>;
  private readonly logger?: Logger;
  /** When the last "statement lost by a pooler" error was logged (once a minute at most). */
  private poolerLogged = 0;
  private readonly listeners: Array<(statement: SentStatement) => void> = [];
  /** Statements sent since the pool opened (`db_statements_total`): a number, so counting costs nothing. */
  statementsSent = 0;
  /** Each open connection's end: `close` waits for them all. */
  private readonly connections = new Set<Promise<void>>();

  constructor(options: DatabaseOptions) {
    const url = new URL(options.url);
    this.name = decodeURIComponent(url.pathname.slice(1));
    this.server = `${url.hostname}:${url.port || '5432'}`;
    this.prepared = options.preparedStatements ?? true;
    this.settings = sessionSettings(options);
    this.logger = options.logger;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      // As knex's pool (tarn) did: an idle connection is closed after 30 s.
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: ACQUIRE_TIMEOUT_MS,
      Client: ServiceClient,
      keepAlive: true,
      types: columnTypes(),
      // As startup parameters, unless a pooler stands in between (then the role carries them: verify).
      ...(this.prepared && options.statementTimeoutMs
        ? { statement_timeout: options.statementTimeoutMs, idle_in_transaction_session_timeout: options.statementTimeoutMs }
        : {}),
      ...(this.prepared && options.options ? { options: options.options } : {}),
    });
    this.pool.on('connect', (client) => {
      const ended = new Promise<void>((resolve) => client.once('end', resolve));
      this.connections.add(ended);
      void ended.then(() => this.connections.delete(ended));
    });
    const { logger } = options;
    // An idle connection that breaks (the database restarted) is dropped by the pool; without a
    // listener its 'error' would end the process.
    this.pool.on('error', (error) => logger?.warn({ err: error }, '[database] idle connection lost'));
    if (logger?.isLevelEnabled('debug')) {
      this.onStatement(({ text, durationMs, error }) =>
        logger.debug(`[query] ${text} [took ${Math.round(durationMs)} ms${error ? `, failed ${codeOf(error)}` : ''}]`),
      );
    }
  }

  query<T = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.send(this.pool, this.statementOf(sql), params).then((result) => result.rows as T[]);
  }

  executeSql(text: string, values: readonly unknown[] = [], name?: string): Promise<pg.QueryResult> {
    return this.send(this.pool, this.prepared && name ? { name, text } : { text }, values);
  }

  /**
   * `work` in one transaction on one connection: committed when it resolves, rolled back when it
   * throws. `tx` serves only inside `work`.
   */
  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // The pool listens for errors on idle connections only: one lost while checked out (the
    // database stopped under the service) would be an uncaught 'error'. The statement in flight
    // fails anyway.
    const lost = () => undefined;
    client.on('error', lost);
    let open = true;
    const on = (statement: { name?: string; text: string }, values: readonly unknown[]) => {
      if (!open) return Promise.reject(new Error('the transaction has ended: its statements run inside its work'));
      return this.send(client, statement, values);
    };
    const tx: Transaction = {
      inTransaction: true,
      query: async <R>(sql: string, params: readonly unknown[] = []) => (await on(this.statementOf(sql), params)).rows as R[],
      executeSql: (text, values = [], name) => on(this.prepared && name ? { name, text } : { text }, values),
    };
    let broken: Error | undefined;
    try {
      await on({ text: 'begin' }, []);
      const result = await work(tx);
      await on({ text: 'commit' }, []);
      return result;
    } catch (error) {
      await on({ text: 'rollback' }, []).catch((failed: Error) => {
        broken = failed;
      });
      throw error;
    } finally {
      open = false;
      client.off('error', lost);
      // A connection that could not even roll back is closed, never handed out again.
      client.release(broken);
    }
  }

  /**
   * Checks at start-up that the server talks to the service as configured (contract section 17).
   * With startup parameters (the default), a refusal of them (PgBouncer's 08P01 "unsupported
   * startup parameter") is a clear error naming DATABASE_PREPARED_STATEMENTS. Without, the role's
   * own settings must be the ones the service would have sent: else the error lists the
   * `ALTER ROLE` that gives them. Other failures (a database not up yet) are left to the
   * requests, which answer 503, and to /readyz.
   */
  async verify(): Promise<void> {
    if (this.prepared) {
      await this.query('select 1').catch((error: unknown) => {
        if (codeOf(error) === '08P01' && /startup parameter/.test((error as Error).message)) {
          throw new DatabaseSetupError(
            `${this.server} refused the connection's startup parameters (${(error as Error).message}): a pooler in ` +
              'transaction mode (PgBouncer before 1.21) stands in front of PostgreSQL. Set DATABASE_PREPARED_STATEMENTS=false ' +
              'and give the role the settings the service would send (docs/scaling.md).',
          );
        }
      });
      return;
    }
    if (this.settings.size === 0) return;
    const names = [...this.settings.keys()];
    let rows: Array<{ name: string; value: string | null }>;
    try {
      rows = await this.query(`select name, current_setting(name, true) as value from unnest(?::text[]) as name`, [names]);
    } catch {
      // Not reachable now (a replica down at start): left to the requests and the replicas' checks, as above.
      return;
    }
    const wrong = rows.filter(({ name, value }) => !sameSetting(name, value, this.settings.get(name) ?? ''));
    if (wrong.length === 0) return;
    const [{ role, database }] = await this.query<{ role: string; database: string }>(
      'select current_user as role, current_database() as database',
    );
    const statements = wrong.map(
      ({ name }) => `ALTER ROLE "${role}" IN DATABASE "${database}" SET ${name} = '${this.settings.get(name) ?? ''}';`,
    );
    throw new DatabaseSetupError(
      `With DATABASE_PREPARED_STATEMENTS=false the service sends no startup parameters, and the role's own settings at ${this.server} ` +
        `differ from the service's (${wrong.map(({ name, value }) => `${name} is ${value ?? 'unset'}`).join(', ')}). ` +
        `Run, on the primary: ${statements.join(' ')} (docs/scaling.md)`,
    );
  }

  /** Calls `listener` after every statement sent, with its text and values; returns the way to stop. */
  onStatement(listener: (statement: SentStatement) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at !== -1) this.listeners.splice(at, 1);
    };
  }

  poolState(): PoolState {
    const { totalCount, idleCount, waitingCount } = this.pool;
    return { inUse: totalCount - idleCount, idle: idleCount, waiting: waitingCount };
  }

  /**
   * Closes every connection, and returns once each has ended: pg-pool's `end` resolves when its
   * connections are asked to end, and a PostgreSQL stopped right after (the embedded one, at
   * shutdown) would cut them with 57P01 first.
   */
  async close(): Promise<void> {
    await this.pool.end();
    await Promise.all(this.connections);
  }

  /** One statement on `on` (the pool, or a transaction's connection), in its span when traced, then told to the listeners. */
  private async send(
    on: pg.Pool | pg.PoolClient,
    statement: { name?: string; text: string },
    values: readonly unknown[],
  ): Promise<pg.QueryResult> {
    const started = performance.now();
    let error: unknown;
    this.statementsSent++;
    try {
      return await inStatementSpan(statement.text, () => on.query({ ...statement, values: values as unknown[] }));
    } catch (failed) {
      error = failed;
      if (statement.name && LOST_STATEMENT.has(codeOf(failed))) this.poolerLost(failed);
      throw failed;
    } finally {
      if (this.listeners.length > 0) {
        const sent: SentStatement = { text: statement.text, values, durationMs: performance.now() - started, error };
        for (const listener of [...this.listeners]) listener(sent);
      }
    }
  }

  /**
   * A named statement the connection should hold was not there (26000), or was already there
   * under this name (42P05): a pooler in transaction mode hands each statement another server
   * connection. Said plainly, once a minute, rather than left as a stream of odd 500s.
   */
  private poolerLost(error: unknown): void {
    if (Date.now() - this.poolerLogged < 60_000) return;
    this.poolerLogged = Date.now();
    this.logger?.error(
      { code: codeOf(error), server: this.server },
      '[database] a named prepared statement was lost between statements: a pooler in transaction mode (PgBouncer before 1.21) ' +
        'stands in front of PostgreSQL. Set DATABASE_PREPARED_STATEMENTS=false (docs/scaling.md).',
    );
  }

  private statementOf(sql: string): { name?: string; text: string } {
    const statement = preparedOf(sql);
    return this.prepared ? statement : { text: statement.text };
  }
}

/** `?` placeholders to `$n`, and a statement name per text, computed once per distinct SQL. */
const preparedStatements = new Map<string, { name: string; text: string }>();

function preparedOf(sql: string): { name: string; text: string } {
  let statement = preparedStatements.get(sql);
  if (!statement) {
    statement = { name: `q_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`, text: positional(sql) };
    preparedStatements.set(sql, statement);
  }
  return statement;
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'without a code';
}

/** SQLSTATEs of a named statement a pooler lost: does not exist, already exists. */
const LOST_STATEMENT = new Set(['26000', '42P05']);

/** The server does not talk to the service as configured: the service must not start. */
export class DatabaseSetupError extends Error {
  override name = 'DatabaseSetupError';
}

/** The session settings the service needs, as PostgreSQL shows them (`-c name=value` of the options, the timeouts in ms). */
function sessionSettings(options: DatabaseOptions): Map<string, string> {
  const settings = new Map<string, string>();
  if (options.statementTimeoutMs) {
    settings.set('statement_timeout', `${options.statementTimeoutMs}ms`);
    settings.set('idle_in_transaction_session_timeout', `${options.statementTimeoutMs}ms`);
  }
  for (const [, name, value] of (options.options ?? '').matchAll(/-c\s+([\w.]+)=(\S+)/g)) settings.set(name, value);
  return settings;
}

/** `10s` and `10000ms` are the same timeout: PostgreSQL shows a time in its own largest unit. */
function sameSetting(name: string, shown: string | null, wanted: string): boolean {
  if (shown === null) return false;
  if (!name.endsWith('_timeout')) return shown === wanted;
  return milliseconds(shown) === milliseconds(wanted);
}

function milliseconds(value: string): number | null {
  const match = /^(\d+)\s*(ms|s|min|h|d)?$/.exec(value.trim());
  if (!match) return null;
  const unit = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 'ms'] ?? 1;
  return Number(match[1]) * unit;
}
