import { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ormConfig } from '../../mikro-orm.config.js';

/** Connects, and applies pending migrations unless told not to. ORM messages go to `logger`. */
export async function openDatabase(url: string, options: { migrate: boolean; logger?: Logger }): Promise<MikroORM> {
  const orm = await MikroORM.init(ormConfig(url, options.logger));
  if (options.migrate) await orm.getMigrator().up();
  return orm;
}
