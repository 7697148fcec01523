import { randomBytes, randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { authenticate, type RequestAuthentication } from '../../src/auth/authenticate.js';
import type { Principal } from '../../src/auth/principal.js';
import { loadConfig } from '../../src/config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { Database } from '../../src/database/database.js';
import { migrateDatabase } from '../../src/database/migrate.js';
import { safeError, type SafeError } from '../../src/errors/safe-errors.js';
import { ReadReplicas } from '../../src/database/replicas.js';
import { createContextFactory, type ContextFactory } from '../../src/graphql/context.js';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { treeLimitSettings } from '../../src/limits/tree-depth.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestService } from './test-service.js';

/**
 * The GraphQL schema run in process, like TypeGraphQL's own functional tests: no HTTP server,
 * no tokens. Documents are executed with graphql-js against a context made by the service's
 * own context factory, on a fresh migrated database of the run's PostgreSQL.
 *
 * What this level does not include, because it is the HTTP route's and Apollo's (test those in
 * test/e2e): the authentication gate and token checks, HTTP statuses and headers, Apollo's
 * request checks (GraphQL Armor's depth/alias/directive limits, the token and cost limits, the
 * variables pre-check, the 401 for an operation without a principal), rate limits and budgets
 * (`spend` does nothing here), Idempotency-Key, the request deadline's race and the response
 * size cap. The authChecker and the resolvers' own checks do run.
 */

/** Who runs the document: the claims a token would carry, or null for no principal (the 401 of a missing token). */
export type Claims = { sub: string; org?: string | null } | null;

export interface RunOptions<Variables> {
  principal: Claims;
  variables?: Variables;
}

/** What a client would read from the response body: errors as the service formats them (safe-errors.ts). */
export interface RunResult<Result> {
  data?: Result | null;
  errors?: SafeError[];
}

export interface InProcessSchema {
  /** Executes a document for a principal; the result is the JSON a client would receive. */
  run<Result, Variables extends Record<string, unknown>>(
    document: TypedDocumentNode<Result, Variables>,
    options: RunOptions<Variables>,
  ): Promise<RunResult<Result>>;
  /** An untyped document: as loose as an HTTP response body read as JSON. */
  run(document: string | DocumentNode, options: RunOptions<Record<string, unknown>>): Promise<{ data?: any; errors?: any }>;
  /** Runs SQL against this database (to insert fixtures with test/support/rows.ts, or to inspect rows). */
  sql: TestService['sql'];
  /** The SQL gateway every context sends its statements through (e.g. to watch them). */
  readonly database: Database;
  readonly schema: GraphQLSchema;
}

/**
 * A fresh migrated database and the built schema for the enclosing `describe`, or the file:
 * made in `beforeAll`, closed in `afterAll` (the same lifecycle as `useTestService`). `env` is
 * read like the service's environment (e.g. quotas or DATABASE_STATEMENT_TIMEOUT_SECONDS).
 */
export function useInProcessSchema(env: Record<string, string> = {}): InProcessSchema {
  let state: { database: Database; pool: pg.Pool; schema: GraphQLSchema; createContext: ContextFactory } | undefined;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'silent',
      ...env,
    });
    const logger = createLogger('silent');
    // As startService opens it: migrations first (on connections of their own), then the
    // service's connection settings (statement timeout, quotas and depth for the triggers).
    await migrateDatabase(databaseUrl, logger);
    const database = new Database({
      url: databaseUrl,
      statementTimeoutMs: config.limits.statementTimeoutSeconds * 1000,
      options: treeLimitSettings(config.limits),
      logger,
    });
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    pool.on('error', () => undefined);
    const createContext = createContextFactory({
      database,
      replicas: ReadReplicas.none(database),
      cipher: new FieldCipher(config.dataEncryptionKey!, config.previousDataEncryptionKeys),
      webhookUrls: { publicOnly: config.webhooks.publicUrlsOnly },
      quoteValidDays: config.quoteValidDays,
      policyRules: config.policyRules,
      logger,
      deadlineSeconds: config.limits.requestDeadlineSeconds,
    });
    state = { database, pool, schema: await buildServiceSchema(), createContext };
  });

  afterAll(async () => {
    await state?.pool.end();
    await state?.database.close();
  });

  const ready = () => {
    if (!state) throw new Error('The in-process schema is not ready: use it inside a test or a hook, after its beforeAll.');
    return state;
  };

  async function run(
    document: string | DocumentNode,
    { principal, variables }: RunOptions<Record<string, unknown>>,
  ): Promise<RunResult<any>> {
    const { schema, createContext } = ready();
    const parsed = typeof document === 'string' ? parse(document) : document;
    const invalid = validate(schema, parsed);
    if (invalid.length > 0) return wire({ errors: invalid.map((error) => safeError(error).safe) });
    const contextValue = createContext({
      requestId: randomUUID(),
      authentication: await authenticationOf(principal),
      spend: { graphqlCost: () => Promise.resolve(), creates: () => Promise.resolve() },
    });
    const result = await execute({ schema, document: parsed, contextValue, variableValues: variables });
    const errors = result.errors?.map((error) => safeError(error).safe);
    return wire(errors ? { errors, data: result.data } : { data: result.data });
  }

  return {
    run: run as InProcessSchema['run'],
    sql: (text, values) =>
      ready()
        .pool.query(text, values)
        .then((result) => result.rows),
    get database() {
      return ready().database;
    },
    get schema() {
      return ready().schema;
    },
  };
}

/** The authentication the gate would record: the principal a token with these claims yields, or the 401 of no token. */
async function authenticationOf(claims: Claims): Promise<RequestAuthentication> {
  if (claims) {
    // As token-verifier.ts reads the claims.
    const principal: Principal = { sub: claims.sub, org: claims.org ? claims.org.toLowerCase() : null };
    return { principal, failure: null, tokenSent: true };
  }
  // No header: `authenticate` answers with the 401 before it would verify anything.
  const authentication = await authenticate(undefined, () => Promise.reject(new Error('no token is verified in process')));
  return { ...authentication, tokenSent: false };
}

/** As sent over the wire (JSON): no undefined members, no class instances. */
function wire<T>(body: T): T {
  return JSON.parse(JSON.stringify(body)) as T;
}
