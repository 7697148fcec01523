import { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ormConfig, type ConnectionSettings } from '../../mikro-orm.config.js';

/**
 * Applies pending migrations unless told not to, then connects with the service's connection
 * settings. Migrations run on connections of their own: a backfill over a large table must not
 * meet the service's statement timeout. ORM messages go to `logger`.
 */
export async function openDatabase(
  url: string,
  options: { migrate: boolean; logger?: Logger; connection?: ConnectionSettings },
): Promise<MikroORM> {
  if (options.migrate && options.connection) {
    const migrating = await MikroORM.init(ormConfig(url, options.logger));
    try {
      await migrating.getMigrator().up();
    } finally {
      await migrating.close();
    }
    return MikroORM.init(ormConfig(url, options.logger, options.connection));
  }
  const orm = await MikroORM.init(ormConfig(url, options.logger, options.connection));
  if (options.migrate) await orm.getMigrator().up();
  return orm;
}
