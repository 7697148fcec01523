import { Migrator } from '@mikro-orm/migrations';
import type { Options } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { migrations } from './migrations/index.js';

/**
 * Everything of the MikroORM configuration but the entities (mikro-orm.config.ts adds them):
 * the migrator's connection, the migrations and logging. MikroORM is the migrator, and the
 * entities' metadata for the tests; the service sends its SQL through database.ts, on a pool of
 * its own (docs/decisions.md, "One pool, one gateway"). Migrations need no entity, so they are
 * applied without loading the entity classes and, through them, TypeGraphQL and graphql
 * (migrate.ts). With a logger, ORM and driver messages go to it (statements at debug level,
 * never their values) instead of the console.
 */
export function ormSettings(clientUrl: string, logger?: Logger): Options {
  // The text is the line's message (pino's msg), so a terminal reads `INFO: [migrator] Applied
  // ...`, not `INFO: undefined` with the text on a line of its own (issue 25, F4). The driver's
  // own lines (knex: pool and connection warnings) carry no prefix: they get `[database]`.
  const log = (level: 'debug' | 'warn' | 'error') => (message: unknown) => logger?.[level](`[database] ${databaseText(message)}`);
  return {
    clientUrl,
    extensions: [Migrator],
    migrations: {
      migrationsList: migrations,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    pool: { min: 0, max: 2 },
    // Fail fast when PostgreSQL is away: a start that cannot migrate says so in seconds. No
    // statement timeout: a backfill over a large table may take longer than a request may.
    driverOptions: {
      acquireConnectionTimeout: 3_000,
      connection: { connectionTimeoutMillis: 2_000, keepAlive: true },
      ...(logger ? { log: { debug: log('debug'), warn: log('warn'), error: log('error'), deprecate: log('warn') } } : {}),
    },
    ...(logger
      ? {
          colors: false,
          debug: logger.isLevelEnabled('debug') ? ['query', 'info', 'discovery'] : ['info'],
          logger: (message: string) => (message.startsWith('[migrator]') ? logger.info(message) : logger.debug(message)),
        }
      : {}),
  };
}

/** A driver log entry as text: knex passes strings, and now and then an Error or an object. */
function databaseText(message: unknown): string {
  if (message instanceof Error) return message.message;
  return typeof message === 'string' ? message : (JSON.stringify(message) ?? String(message));
}
