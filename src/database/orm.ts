import { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ormConfig } from '../../mikro-orm.config.js';

/** Connects, and applies pending migrations unless told not to. ORM messages go to our log. */
export async function openDatabase(url: string, options: { migrate: boolean; logger?: Logger }): Promise<MikroORM> {
  const { logger } = options;
  const orm = await MikroORM.init(
    ormConfig(url, { colors: false, logger: (message) => (logger ? logger.info({ orm: message }) : console.log(message)) }),
  );
  if (options.migrate) await orm.getMigrator().up();
  return orm;
}
