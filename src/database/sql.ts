import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { inStatementSpan } from './statement-spans.js';

interface PgConnection {
  query(query: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  emit(event: 'query', query: { sql: string; bindings: unknown[] }): void;
}

/** `?` placeholders to `$n`, and a statement name per text, computed once per distinct SQL. */
const prepared = new Map<string, { name: string; text: string }>();

function preparedOf(sql: string): { name: string; text: string } {
  let statement = prepared.get(sql);
  if (!statement) {
    statement = { name: `q_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`, text: positional(sql) };
    prepared.set(sql, statement);
  }
  return statement;
}

/**
 * A statement built around an access predicate's SQL (auth/access-rule.ts), built once per
 * predicate: the same string object comes back each time, so it is neither rebuilt nor hashed
 * again to find its prepared statement (a policy read's text is a kilobyte).
 */
export function perAccess(build: (access: string) => string): (access: string) => string {
  const built = new Map<string, string>();
  return (access) => {
    let sql = built.get(access);
    if (sql === undefined) built.set(access, (sql = build(access)));
    return sql;
  };
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`, ... */
export function positional(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/**
 * One SQL statement, values bound as parameters (`?` placeholders), as a named prepared
 * statement: after its first use on a connection only the statement's name and values travel,
 * not its text, and PostgreSQL keeps the parse. On the hot reads that halves the cost of
 * talking to the database (docs/benchmark.md). Inside the request's transaction when there is
 * one (an idempotent create reads its own writes; a cancellation holds its policy's lock): a
 * knex transaction's client hands out that transaction's connection and keeps it.
 */
export async function querySql<T = Record<string, unknown>>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  const source = em.getTransactionContext<{ client: unknown }>() ?? em.getConnection().getKnex();
  const client = source.client as KnexClient;
  const statement = preparedOf(sql);
  const connection = await client.acquireConnection();
  try {
    // Seen like every other statement by whoever listens to knex's 'query' events.
    client.emit('query', { sql: statement.text, bindings: params });
    return (await inStatementSpan(statement.text, () => connection.query({ ...statement, values: params }))).rows as T[];
  } finally {
    await client.releaseConnection(connection);
  }
}

/** A PostgreSQL array literal of ids (uuids need no quoting). */
export function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`;
}
