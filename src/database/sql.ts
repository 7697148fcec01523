import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * One SQL statement through the request's entity manager: inside its transaction when there
 * is one (an idempotent create reads its own writes), values bound with `?` placeholders.
 */
export function querySql<T = Record<string, unknown>>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(sql, params, 'all', em.getTransactionContext());
}

/** A PostgreSQL array literal of ids (uuids need no quoting). */
export function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`;
}
