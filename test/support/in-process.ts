import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parse as parseQuery } from 'node:querystring';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, parse, print, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import pg from 'pg';
import type { Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { authenticate, authenticationRefusal, type RequestAuthentication } from '../../src/auth/authenticate.js';
import type { Principal } from '../../src/auth/principal.js';
import { createTokenVerifier, type TokenVerifier } from '../../src/auth/token-verifier.js';
import { apiKeyHashesOf } from '../../src/auth/api-key-hashes.js';
import { API_KEY_VERIFIER_SETTINGS, createApiKeyVerifier, credentialVerifier } from '../../src/auth/api-key-verifier.js';
import { verificationKeys } from '../../src/auth/verification-keys.js';
import { loadConfig, type Config } from '../../src/config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { RequestFingerprints } from '../../src/crypto/request-fingerprint.js';
import { Database } from '../../src/database/database.js';
import { migrateDatabase } from '../../src/database/migrate.js';
import { ReadReplicas } from '../../src/database/replicas.js';
import { errorAnswer, REST, type Answer } from '../../src/errors/answer.js';
import { graphqlMediaType } from '../../src/errors/error-head.js';
import { OutageLog } from '../../src/errors/outage-log.js';
import { safeError, type SafeError } from '../../src/errors/safe-errors.js';
import { answerGraphqlCall } from '../../src/graphql-server/graphql-route.js';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { createContextFactory, type ContextFactory } from '../../src/graphql/context.js';
import { serviceVersion } from '../../src/http/version.js';
import { treeLimitSettings } from '../../src/limits/tree-depth.js';
import { createLogger } from '../../src/logger.js';
import { answerRoute, prepareRoute, type PreparedRoute } from '../../src/rest/rest-operation.js';
import { openApiDocument } from '../../src/rest/openapi.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { coreSettings, createServiceCore, type ServiceCore } from '../../src/service-core.js';
import { outgoing, parsedBody, type Client, type RequestOptions, type TestResponse } from './http.js';
import { openApiCheckerOf, type ResponseChecker } from './openapi.js';
import { createTestDatabase, serviceEnvironment, testToken, type TestService } from './test-service.js';

/**
 * Two in-process levels, on a fresh migrated database of the run's PostgreSQL, without a socket.
 *
 * `useInProcessSchema`: the GraphQL schema alone, like TypeGraphQL's own functional tests.
 * Documents are executed with graphql-js against a context made by the service's own context
 * factory, for a principal given as claims. The authChecker and the resolvers' own checks run;
 * the operation core does not (no statuses, budgets, Idempotency-Key, deadline or cap: `spend`
 * does nothing).
 *
 * `useInProcessService`: the operation core (src/operations/operation-core.ts) under both
 * surfaces, as the HTTP service builds it (src/service-core.ts), sent the request shapes the
 * hosts hand it (rest-operation.ts `answerRoute`, graphql-route.ts `answerGraphqlCall`): its
 * Answer value (status, headers, body) for a REST route and for `/graphql`, with statuses,
 * error answers, Idempotency-Key, the deadline, the response cap, the creates and GraphQL cost
 * budgets, Apollo's request checks and the token's verification. Everything a socket or Express
 * decides stays in test/e2e, because it is not here:
 * - the authentication gate's refusal of two Authorization headers (http/authentication-gate.ts);
 * - X-Request-Id's rule and the access line (http/request-lifecycle.ts): a given id is taken as is;
 * - the requests, anonymous and in-flight budgets (the middleware of limits/rate-limits.ts), and
 *   the creates charge of a REST write (rest-router.ts `spendCreates`, before the body);
 * - routing (404, 405 with Allow), the body parser and media types (400 for a body that is not
 *   JSON, 413, 415): a request here names a route and sends JSON;
 * - what the writer adds (http/write-answer.ts): 304 for If-None-Match, the charset;
 * - CORS, the developer pages and Apollo Sandbox, HTTP server limits, connections.
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

/** A migrated database for in-process tests, opened as startService opens it, and a pool of two for the tests' own SQL. */
interface OpenDatabase {
  config: Config;
  env: Record<string, string>;
  databaseUrl: string;
  database: Database;
  pool: pg.Pool;
  logger: Logger;
}

/** A new database (or `shared`'s, with its data key), migrated, with the configuration `env` makes; closed by `closeDatabase`. */
async function openDatabase(
  env: Record<string, string>,
  options: { logger?: Logger; shared?: Pick<OpenDatabase, 'databaseUrl' | 'env'> } = {},
): Promise<OpenDatabase> {
  const { shared } = options;
  const databaseUrl = shared?.databaseUrl ?? (await createTestDatabase());
  const environment = serviceEnvironment(databaseUrl, env, shared);
  const config = loadConfig(environment);
  const logger = options.logger ?? createLogger('silent');
  // As startService opens it: migrations first (on connections of their own), then the
  // service's connection settings (statement timeout, quotas and depth for the triggers).
  if (!shared) await migrateDatabase(databaseUrl, logger);
  const database = new Database({
    url: databaseUrl,
    statementTimeoutMs: config.limits.statementTimeoutSeconds * 1000,
    options: treeLimitSettings(config.limits),
    logger,
  });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  pool.on('error', () => undefined);
  return { config, env: environment, databaseUrl, database, pool, logger };
}

async function closeDatabase(open: OpenDatabase | undefined): Promise<void> {
  await open?.pool.end();
  await open?.database.close();
}

const sqlOn =
  (pool: () => pg.Pool): TestService['sql'] =>
  (text, values) =>
    pool()
      .query(text, values)
      .then((result) => result.rows);

/**
 * A fresh migrated database and the built schema for the enclosing `describe`, or the file:
 * made in `beforeAll`, closed in `afterAll` (the same lifecycle as `useTestService`). `env` is
 * read like the service's environment (e.g. quotas or DATABASE_STATEMENT_TIMEOUT_SECONDS).
 */
export function useInProcessSchema(env: Record<string, string> = {}): InProcessSchema {
  let state: { open: OpenDatabase; schema: GraphQLSchema; createContext: ContextFactory } | undefined;

  beforeAll(async () => {
    const open = await openDatabase(env);
    const { config, database, logger } = open;
    const createContext = createContextFactory({
      database,
      replicas: ReadReplicas.none(database),
      cipher: new FieldCipher(config.dataEncryptionKey!, config.previousDataEncryptionKeys),
      apiKeyHashes: apiKeyHashesOf(config, config.dataEncryptionKey!),
      webhookUrls: { publicOnly: config.webhooks.publicUrlsOnly },
      quoteValidDays: config.quoteValidDays,
      policyRules: config.policyRules,
      logger,
      outage: new OutageLog(logger),
      deadlineSeconds: config.limits.requestDeadlineSeconds,
    });
    state = { open, schema: await buildServiceSchema(), createContext };
  });

  afterAll(() => closeDatabase(state?.open));

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
    sql: sqlOn(() => ready().open.pool),
    get database() {
      return ready().open.database;
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

/** An in-process answer, read as the e2e tests read an HTTP response (test/support/http.ts), with the Answer value itself. */
export interface InProcessResponse<T = any> extends TestResponse<T> {
  answer: Answer;
}

/**
 * The operation core for the enclosing `describe`, or the file, sent requests as the e2e tests
 * send them to a started service (`request`, `graphql`, `execute`, `token`), without a socket:
 * the same tests read the same answers. See this file's first comment for what it leaves out.
 */
export interface InProcessService extends Client {
  /** A REST route or `/graphql`: method, path with its query string, and the options of test/support/http.ts. */
  request(method: string, path: string, options?: RequestOptions): Promise<InProcessResponse>;
  /** A GraphQL POST to `/graphql`. */
  graphql(query: string, variables?: Record<string, unknown>, token?: string): Promise<InProcessResponse>;
  /** A typed document (generated from test/operations by `npm run codegen`) sent to `/graphql`. */
  execute<Result, Variables>(
    document: TypedDocumentNode<Result, Variables>,
    variables: Variables,
    token?: string,
  ): Promise<InProcessResponse<{ data?: Result | null; errors?: Array<{ message: string; extensions: Record<string, any> }> }>>;
  /** A valid token for these claims (as test-service.ts makes them); verified in process by the service's verifier. */
  token: typeof testToken;
  sql: TestService['sql'];
  readonly database: Database;
  readonly databaseUrl: string;
  /** The environment the service was configured from (a second instance on its database needs its DATA_ENCRYPTION_KEY). */
  readonly env: Record<string, string>;
  readonly schema: GraphQLSchema;
}

export interface InProcessServiceOptions {
  /** Another instance of the same deployment: this one runs on its database with its DATA_ENCRYPTION_KEY. */
  sameDatabaseAs?: Pick<InProcessService, 'databaseUrl' | 'env'>;
  /** The service's logger (default: silent), e.g. to read what it logs. */
  logger?: Logger;
}

/** The OpenAPI document's checker, made once per worker: the document depends on the code, not on the settings. */
let checker: ResponseChecker | undefined;

interface ServiceState {
  open: OpenDatabase;
  service: ServiceCore;
  verify: TokenVerifier;
  routes: Array<{ route: PreparedRoute; pattern: RegExp; names: string[] }>;
  checkResponse: ResponseChecker;
}

/**
 * The operation core on a fresh migrated database (or another in-process service's) for the
 * enclosing `describe`, or the file: made in `beforeAll`, closed in `afterAll`. `env` is read
 * like the service's environment.
 */
export function useInProcessService(env: Record<string, string> = {}, options: InProcessServiceOptions = {}): InProcessService {
  let state: ServiceState | undefined;

  beforeAll(async () => {
    const open = await openDatabase(env, { logger: options.logger, shared: options.sameDatabaseAs });
    const { config, database, logger } = open;
    const dataKey = config.dataEncryptionKey!;
    const service = await createServiceCore({
      database,
      replicas: ReadReplicas.none(database),
      cipher: new FieldCipher(dataKey, config.previousDataEncryptionKeys),
      fingerprints: new RequestFingerprints(dataKey, config.previousDataEncryptionKeys),
      apiKeyHashes: apiKeyHashesOf(config, dataKey),
      logger,
      ...coreSettings(config),
    });
    const routes = REST_ROUTES.map((route) => {
      const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
      return { route: prepareRoute(service.schema, route), pattern: new RegExp(`^${route.path.replace(/:\w+/g, '([^/]+)')}$`), names };
    });
    // Every REST answer must match the OpenAPI document the service serves, as over HTTP.
    checker ??= openApiCheckerOf(openApiDocument(service.schema, serviceVersion().version));
    const checkResponse = checker;
    state = {
      open,
      service,
      verify: credentialVerifier(
        createTokenVerifier(verificationKeys(config)),
        createApiKeyVerifier(database, apiKeyHashesOf(config, dataKey), API_KEY_VERIFIER_SETTINGS(logger)),
      ),
      routes,
      checkResponse,
    };
  });

  afterAll(async () => {
    await state?.service.apollo.stop();
    await closeDatabase(state?.open);
  });

  const ready = () => {
    if (!state) throw new Error('The in-process service is not ready: use it inside a test or a hook, after its beforeAll.');
    return state;
  };

  async function request(method: string, path: string, options: RequestOptions = {}): Promise<InProcessResponse> {
    const { service, verify, checkResponse } = ready();
    const sent = outgoing(path, options);
    const headers = new Map(Object.entries(sent.headers).map(([name, value]) => [name.toLowerCase(), value]));
    const header = (name: string) => headers.get(name.toLowerCase());
    const startedAt = performance.now();
    const requestId = header('x-request-id') ?? randomUUID();
    // As the authentication gate records it (http/authentication-gate.ts).
    const authorization = header('authorization');
    const authentication = { ...(await authenticate(authorization, verify)), tokenSent: authorization !== undefined };
    // The body as the JSON parser hands it on: a JSON value, or nothing.
    const body = sent.body === undefined ? undefined : (JSON.parse(sent.body) as unknown);
    const { pathname, search } = new URL(path, 'http://in-process');
    let answer: Answer;
    if (pathname === '/graphql') {
      const surface = { kind: 'graphql', mediaType: graphqlMediaType(header('accept')) } as const;
      const point = { surface: 'graphql', anonymousIntrospection: service.graphql.developerPages } as const;
      const refusal = authenticationRefusal(authentication, point);
      answer = refusal
        ? errorAnswer(surface, [refusal], { requestId })
        : await answerGraphqlCall(service.core, service.graphql, {
            requestId,
            startedAt,
            authentication,
            operation: {},
            method,
            search,
            body,
            header,
          });
    } else {
      const { route, params } = routeOf(method, pathname);
      const refusal = authenticationRefusal(authentication, { surface: 'rest' });
      answer = refusal
        ? errorAnswer(REST, [refusal], { requestId })
        : await answerRoute(service.core, service.schema, route, {
            requestId,
            startedAt,
            authentication,
            params,
            // Express 5's query parser ("simple"): node:querystring.
            query: parseQuery(search.slice(1)),
            body,
            header,
          });
    }
    const response = { ...responseOf(answer), answer };
    if (pathname !== '/graphql') checkResponse(method, path, response);
    return response;
  }

  /** The route of a method and path, with its parameters decoded as Express decodes them. */
  function routeOf(method: string, pathname: string): { route: PreparedRoute; params: Record<string, string> } {
    for (const { route, pattern, names } of ready().routes) {
      const match = route.method === method ? pattern.exec(pathname) : null;
      if (match) return { route, params: Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1])])) };
    }
    throw new Error(`No REST route for ${method} ${pathname}: 404 and 405 are Express's, test them in test/e2e.`);
  }

  return {
    request,
    graphql: (query, variables = {}, token) => request('POST', '/graphql', { token, body: { query, variables } }),
    execute: (document, variables, token) => request('POST', '/graphql', { token, body: { query: print(document), variables } }),
    token: testToken,
    sql: sqlOn(() => ready().open.pool),
    get database() {
      return ready().open.database;
    },
    get databaseUrl() {
      return ready().open.databaseUrl;
    },
    get env() {
      return ready().open.env;
    },
    get schema() {
      return ready().service.schema;
    },
  };
}

/** An Answer as a client reads the response: its status, its headers (lists appended) with its media type, and its body. */
function responseOf(answer: Answer): TestResponse {
  const headers = new Headers({ 'content-type': answer.contentType });
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else for (const item of value) headers.append(name, item);
  }
  return { status: answer.status, headers, body: parsedBody(answer.body), text: answer.body };
}
