import { Migrator } from '@mikro-orm/migrations';
import type { Options } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { migrations } from './migrations/index.js';

/** Settings of the service's own connections (the migrate and seed scripts run without them). */
export interface ConnectionSettings {
  /** PostgreSQL statement_timeout, and the idle-in-transaction timeout of abandoned transactions. */
  statementTimeoutMs?: number;
  /** PostgreSQL startup options, e.g. `-c org_policy.quota_policies_per_tree=1000`. */
  options?: string;
}

/**
 * Everything of the MikroORM configuration but the entities (mikro-orm.config.ts adds them):
 * connection, pool, migrations and logging. Migrations alone need no entity, so the cluster
 * primary applies them without loading the entity classes and, through them, TypeGraphQL and
 * graphql (migrate.ts). With a logger, ORM and driver messages go to it (statements at debug
 * level, never their values: they carry tax ids and kept responses) instead of the console.
 */
export function ormSettings(clientUrl: string, logger?: Logger, settings: ConnectionSettings = {}): Options {
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
    // Requests must use their own fork of the entity manager.
    allowGlobalContext: false,
    pool: { min: 0, max: 10 },
    // Fail fast when PostgreSQL is away, so callers get a 503 in seconds rather than hanging.
    driverOptions: {
      acquireConnectionTimeout: 3_000,
      connection: {
        connectionTimeoutMillis: 2_000,
        keepAlive: true,
        ...(settings.statementTimeoutMs
          ? { statement_timeout: settings.statementTimeoutMs, idle_in_transaction_session_timeout: settings.statementTimeoutMs }
          : {}),
        ...(settings.options ? { options: settings.options } : {}),
      },
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
