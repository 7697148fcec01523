import type { SqlClient } from './database.js';
import { MIGRATION_NAMES } from './migrations/names.js';

/** MikroORM's Migrator records each migration it applied here, by name. */
const APPLIED = 'select name from mikro_orm_migrations';
/** PostgreSQL's undefined_table: no migration has ever run on this database. */
const UNDEFINED_TABLE = '42P01';

/**
 * The migrations of this build that the database has not applied, in order (what readiness
 * waits for). Read with one statement on the service's own connections, without the migrator.
 */
export async function pendingMigrations(db: SqlClient): Promise<string[]> {
  let applied: Set<string>;
  try {
    applied = new Set((await db.query<{ name: string }>(APPLIED)).map((row) => row.name));
  } catch (error) {
    if ((error as { code?: unknown }).code !== UNDEFINED_TABLE) throw error;
    applied = new Set();
  }
  return MIGRATION_NAMES.filter((name) => !applied.has(name));
}
