import { MikroORM, type Options } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { migrateDatabase } from './migrate.js';

/**
 * Applies pending migrations unless told not to (migrate.ts, on connections of their own), then
 * connects with `config`: the caller's (service.ts passes mikro-orm.config.ts's, which names every
 * entity, so this lowest layer imports no feature). ORM messages go to `logger`.
 */
export async function openDatabase(config: Options, options: { migrate: boolean; logger?: Logger }): Promise<MikroORM> {
  if (options.migrate) {
    if (!config.clientUrl) throw new Error('openDatabase: the config names no clientUrl to migrate');
    await migrateDatabase(config.clientUrl, options.logger);
  }
  return MikroORM.init(config);
}
