import { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ormConfig, type ConnectionSettings } from '../../mikro-orm.config.js';
import { migrateDatabase } from './migrate.js';

/**
 * Applies pending migrations unless told not to (migrate.ts, on connections of their own), then
 * connects with the service's connection settings. ORM messages go to `logger`.
 */
export async function openDatabase(
  url: string,
  options: { migrate: boolean; logger?: Logger; connection?: ConnectionSettings },
): Promise<MikroORM> {
  if (options.migrate) await migrateDatabase(url, options.logger);
  return MikroORM.init(ormConfig(url, options.logger, options.connection));
}
