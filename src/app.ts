import { getOperationAST, GraphQLError, parse } from 'graphql';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createServer } from 'node:http';
import { authenticationGate } from './http/authentication-gate.js';
import { rateLimitGate } from './http/rate-limit-gate.js';
import type { TokenVerifier } from './auth/token-verifier.js';
import { API_KEY_VERIFIER_SETTINGS, createApiKeyVerifier, credentialVerifier } from './auth/api-key-verifier.js';
import type { Config } from './config.js';
import { pendingMigrations } from './database/migration-state.js';
import { corsPolicy } from './http/cors.js';
import { developerPages } from './http/developer-pages.js';
import { serviceVersion } from './http/version.js';
import { sendError, servedByGraphql, writeAnswer } from './http/write-answer.js';
import { jsonAnswer } from './errors/answer.js';
import { badUserInput, notFound, ServiceError, unavailable } from './errors/errors.js';
import { graphqlRoute } from './graphql-server/graphql-route.js';
import { landingPage } from './graphql-server/apollo.js';
import { createServiceCore, type CoreDependencies } from './service-core.js';
import { drainable } from './http/http-drain.js';
import { closeIdleConnectionsAfterReads } from './http/keep-alive.js';
import { cachedReadiness } from './http/readiness.js';
import { capConnectionsPerAddress } from './http/connection-caps.js';
import { clientAddress } from './limits/rate-limits.js';
import { openApiDocument } from './rest/openapi.js';
import { requestLifecycle } from './http/request-lifecycle.js';
import { mountRestRoutes, REST_BODY_TYPES } from './rest/rest-router.js';
import { AUDIT_EXPORT_PATH, auditExportRoute, PLAIN_ROUTES } from './rest/audit-export.js';
import type { ServiceMetrics } from './observability/metrics.js';
import { metricsRoute } from './http/metrics-route.js';
import { routeNamer } from './observability/route-names.js';
import { REST_ROUTES } from './rest/routes.js';

/** The operation core's dependencies (service-core.ts), and what the HTTP host adds. */
export interface ServiceDependencies extends Omit<CoreDependencies, 'rateLimited' | 'ledgerWritten'> {
  verifyToken: TokenVerifier;
  trustProxy: boolean | number | string;
  corsOrigins: Config['corsOrigins'];
  metrics: ServiceMetrics;
  /** Spec section 13: `/metrics` needs this bearer token; unset, it is open outside production and 404 in it. */
  metricsToken: string | undefined;
  /** METRICS_OPERATION_NAMES: operation names the operator declares, besides the manifest's and the REST documents'. */
  metricsOperationNames: readonly string[];
  /** OpenTelemetry is on (observability/tracing.ts). */
  traced: boolean;
}

/** Paths served outside the REST route table, as metrics count them when no route matched. */
const FIXED_ROUTES = [
  '/graphql',
  '/metrics',
  '/healthz',
  '/readyz',
  '/version',
  '/api/v1/openapi.json',
  '/api/v1/docs',
  '/graphiql',
  '/favicon.ico',
  '/',
];

/** Request bodies larger than this are refused with 413 (spec section 6). */
const BODY_LIMIT = '100kb';

/**
 * Assembles the HTTP service: request ids and logs, health, then for everything else the
 * authentication gate and the per-caller limits before any body is read, the REST adapter,
 * Apollo at `/graphql`, and problem+json for everything that matches no route or fails before one.
 */
export async function createApp(deps: ServiceDependencies) {
  const { limits } = deps;
  const { schema, core, rateLimits, apollo, graphql, outage } = await createServiceCore({
    ...deps,
    rateLimited: (policy) => deps.metrics.observeRateLimited(policy),
    ledgerWritten: (entry) => deps.metrics.observeLedger(entry),
  });
  // Contract section 13: only declared operation names get a metrics label of their own.
  deps.metrics.declareOperationNames([
    ...graphql.trustedDocuments.operationNames(),
    ...REST_ROUTES.flatMap((route) => getOperationAST(parse(route.document))?.name?.value ?? []),
    ...deps.metricsOperationNames,
  ]);
  const app = express();
  // One HTTP server for REST and GraphQL, drained on stop (see http-drain.ts). Node checks the
  // headers and request timeouts every `connectionsCheckingInterval` (30 s by default), so a
  // trickling client is cut within a second of its timeout rather than up to 30 s later.
  const server = createServer(
    {
      headersTimeout: limits.http.headersTimeoutSeconds * 1000,
      requestTimeout: limits.http.requestTimeoutSeconds * 1000,
      connectionsCheckingInterval: 1000,
    },
    app,
  );
  server.keepAliveTimeout = limits.http.keepAliveTimeoutSeconds * 1000;
  // The total guards the process's file descriptors; the per-address cap keeps one client from
  // holding all of them (connection-caps.ts).
  server.maxConnections = limits.http.maxConnections;
  capConnectionsPerAddress(server, limits.http.maxConnectionsPerAddress, clientAddress);
  closeIdleConnectionsAfterReads(server);
  const http = drainable(server);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy);
  const routeOf = routeNamer([...FIXED_ROUTES, ...REST_ROUTES.map((route) => route.path), ...PLAIN_ROUTES.map((route) => route.path)]);
  app.use(requestLifecycle(deps.logger, { draining: http.draining, metrics: deps.metrics, routeOf, traced: deps.traced }));
  app.use(corsPolicy(deps.corsOrigins));

  const version = serviceVersion();
  app.get('/version', (req, res) => writeAnswer(req, res, jsonAnswer(version)));
  // GraphiQL, the REST reference and the index (spec section 9); else these paths are 404.
  if (deps.developerPages) app.use(developerPages(version));

  app.get('/healthz', (req, res) => writeAnswer(req, res, jsonAnswer({ status: 'ok' })));
  // One database check a second at most, shared by every caller (http/readiness.ts).
  const readiness = cachedReadiness(async () => {
    try {
      const pending = await pendingMigrations(deps.database);
      return pending.length > 0 ? 'migrations pending' : 'ready';
    } catch {
      return 'database unreachable';
    }
  });
  app.get('/readyz', async (req, res) => {
    const state = await readiness();
    // Ready while the primary is: a replica's state is shown, never a reason to take the instance out.
    const replicas = deps.replicas.size > 0 ? { replicas: deps.replicas.status() } : {};
    if (state === 'ready') return writeAnswer(req, res, jsonAnswer({ status: 'ready', ...replicas }));
    sendError(req, res, unavailable(state === 'migrations pending' ? 'Migrations are pending.' : 'The database is unreachable.'));
  });

  // Prometheus scrapes with a token of its own (or none outside production), not a caller's JWT.
  if (deps.metricsToken || !deps.production) app.get('/metrics', metricsRoute(deps.metrics, deps.metricsToken));

  // Everything past health and metrics: who is asking, then their budgets, before any body is read.
  // A bearer credential is a JWT or an API key (contract section 20): both become one principal shape.
  const verifyKey = createApiKeyVerifier(deps.database, deps.apiKeyHashes, API_KEY_VERIFIER_SETTINGS(deps.logger));
  app.use(authenticationGate(credentialVerifier(deps.verifyToken, verifyKey)));
  app.use(rateLimitGate(rateLimits));

  // The REST layer's description is public, like any API reference; built once from the schema.
  const openApi = openApiDocument(schema, version.version);
  const openApiAnswer = jsonAnswer(openApi);
  app.get('/api/v1/openapi.json', (req, res) => writeAnswer(req, res, openApiAnswer));
  // The audit log's export streams: a plain route, behind the same gates (rest/audit-export.ts).
  app.get(AUDIT_EXPORT_PATH, ...auditExportRoute(deps.database, deps.logger));
  mountRestRoutes(app, schema, core, { bodyParser: jsonBody(REST_BODY_TYPES), limits: rateLimits });
  // `/graphql` alone (and `/graphql/`): a path below it is a 404, not a second endpoint.
  app.all('/graphql', ...graphqlRoute(core, { ...graphql, bodyParser: jsonBody(), landingPage: landingPage(apollo) }));

  app.use((req, res) => {
    sendError(req, res, notFound(`No route for ${req.method} ${req.path}.`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    // A client that hangs up while sending its body (or is cut by the request timeout) is not a
    // fault of ours: an info line without a stack, so no caller can fill the error log with it.
    if (clientAborted(error)) {
      deps.logger.info(
        { requestId: res.locals.requestId, req: { method: req.method, url: req.originalUrl.split('?')[0] } },
        'client aborted the request',
      );
      if (!req.socket.destroyed) sendError(req, res, badUserInput([], 'The request body was not received whole.'));
      return;
    }
    const known = requestProblem(error, servedByGraphql(req));
    if (known) return sendError(req, res, known);
    deps.logger.error({ err: error, requestId: res.locals.requestId }, 'unexpected error');
    sendError(req, res, new ServiceError('INTERNAL_SERVER_ERROR', 'Internal server error.'));
  });

  return { app, server, drain: http.drain, apollo, schema, outage };
}

/**
 * JSON bodies: UTF-8 only (spec: `application/json`; a UTF-16 body is 415), and any JSON
 * value is parsed so that a scalar body is told it must be an object, not that it is not JSON.
 */
function jsonBody(type: string[] = ['application/json']): RequestHandler {
  const parse = express.json({ limit: BODY_LIMIT, strict: false, type });
  return (req, res, next) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get('content-type') ?? '')?.[1];
    if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
      return sendError(req, res, new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 application/json.'));
    }
    parse(req, res, next);
  };
}

/** raw-body's error when the client's request ended before its body did (closed or reset). */
function clientAborted(error: unknown): boolean {
  const { type, code } = (error ?? {}) as { type?: string; code?: string };
  return type === 'request.aborted' || code === 'ECONNRESET' || code === 'ECONNABORTED';
}

/**
 * Errors raised before any route ran (the body parser, the router's path decoding), as problems.
 * On `/graphql` a body that is not JSON is not a GraphQL request at all: Apollo's BAD_REQUEST
 * (400 whatever the client accepts, as GraphQL over HTTP recommends), not BAD_USER_INPUT.
 */
function requestProblem(error: unknown, graphql: boolean): GraphQLError | null {
  // A path parameter with malformed percent-encoding (`/api/v1/policy/%`) names nothing.
  if (error instanceof URIError) return notFound();
  const type = (error as { type?: string } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return graphql
        ? new GraphQLError('The request body is not valid JSON.', { extensions: { code: 'BAD_REQUEST' } })
        : badUserInput([], 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new ServiceError('PAYLOAD_TOO_LARGE', `The request body exceeds ${BODY_LIMIT}.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 application/json.');
    default:
      return null;
  }
}
