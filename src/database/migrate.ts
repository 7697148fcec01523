import { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ormSettings } from './orm-settings.js';

/**
 * Applies pending migrations on connections of its own, opened for this and closed after: a
 * backfill over a large table must not meet the service's statement timeout. No entity is
 * loaded (migrations are SQL), so the cluster primary can run this and stay light. Returns the
 * names of the migrations applied. Loaded only by what migrates (a dynamic import in
 * service.ts and cluster-primary.ts): MikroORM's migrator and knex stay out of the workers.
 */
export async function migrateDatabase(url: string, logger?: Logger): Promise<string[]> {
  const orm = await MikroORM.init({
    ...ormSettings(url, logger),
    entities: [],
    discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
  });
  try {
    return (await orm.getMigrator().up()).map((migration) => migration.name);
  } finally {
    await orm.close();
  }
}
