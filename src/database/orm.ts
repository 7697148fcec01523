import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config.js';

/** Connects, and applies pending migrations unless told not to. */
export async function openDatabase(url: string, options: { migrate: boolean }): Promise<MikroORM> {
  const orm = await MikroORM.init(ormConfig(url));
  if (options.migrate) await orm.getMigrator().up();
  return orm;
}
