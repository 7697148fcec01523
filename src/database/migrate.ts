import { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ormSettings } from './orm-settings.js';

/**
 * Applies pending migrations on connections of its own, opened for this and closed after: a
 * backfill over a large table must not meet the service's statement timeout. No entity is
 * loaded (migrations are SQL), so the cluster primary can run this and stay light.
 */
export async function migrateDatabase(url: string, logger?: Logger): Promise<void> {
  const orm = await MikroORM.init({
    ...ormSettings(url, logger),
    entities: [],
    discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
  });
  try {
    await orm.getMigrator().up();
  } finally {
    await orm.close();
  }
}
