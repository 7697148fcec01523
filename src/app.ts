import { expressMiddleware } from '@as-integrations/express5';
import type { MikroORM } from '@mikro-orm/postgresql';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createServer } from 'node:http';
import type { Logger } from 'pino';
import type { TokenVerifier } from './auth/token-verifier.js';
import { createApolloServer, type ApolloOptions } from './graphql/apollo.js';
import { createContextFactory } from './graphql/context.js';
import { RETRY_AFTER_SECONDS } from './graphql/errors.js';
import { buildServiceSchema } from './graphql/schema.js';
import { drainable } from './http-drain.js';
import { graphqlIdempotency } from './idempotency/graphql-idempotency.js';
import { openApiDocument } from './rest/openapi.js';
import { requestLifecycle } from './request-lifecycle.js';
import { sendProblem } from './rest/problem.js';
import { restRouter } from './rest/rest-router.js';
import type { FieldCipher } from './sensitive/field-cipher.js';

export interface ServiceDependencies {
  orm: MikroORM;
  verifyToken: TokenVerifier;
  cipher: FieldCipher;
  logger: Logger;
  production: boolean;
  graphql: Omit<ApolloOptions, 'production'>;
  idempotencyRetentionSeconds: number;
}

/** Request bodies larger than this are refused with 413 (contract section 6). */
const BODY_LIMIT = '100kb';

/**
 * Assembles the HTTP service: request ids and logs, health, the REST adapter, Apollo at
 * `/graphql`, and problem+json for everything that matches no route or fails before one.
 */
export async function createApp(deps: ServiceDependencies) {
  const schema = await buildServiceSchema();
  const createContext = createContextFactory(deps);
  const app = express();
  // One HTTP server for REST and GraphQL, drained on stop (see http-drain.ts).
  const server = createServer(app);
  const http = drainable(server);
  const apollo = createApolloServer(schema, { production: deps.production, ...deps.graphql });
  await apollo.start();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestLifecycle(deps.logger, http.draining));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      const pending = await deps.orm.getMigrator().getPendingMigrations();
      if (pending.length > 0) return sendProblem(res, { status: 503, code: 'UNAVAILABLE', detail: 'Migrations are pending.' });
      res.json({ status: 'ready' });
    } catch {
      sendProblem(res, { status: 503, code: 'UNAVAILABLE', detail: 'The database is unreachable.' }, { 'Retry-After': RETRY_AFTER_SECONDS });
    }
  });

  // The REST layer's description is public, like any API reference.
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  app.use(
    restRouter(schema, createContext, {
      production: deps.production,
      idempotencyRetentionSeconds: deps.idempotencyRetentionSeconds,
      bodyParser: express.json({ limit: BODY_LIMIT }),
    }),
  );
  app.use(
    '/graphql',
    express.json({ limit: BODY_LIMIT }),
    graphqlIdempotency(apollo, createContext, deps.idempotencyRetentionSeconds),
    expressMiddleware(apollo, {
      context: async ({ req, res }) => {
        const context = await createContext({ requestId: res.locals.requestId, authorization: req.get('authorization') });
        res.locals.sub = context.principal?.sub;
        // In production every operation needs a principal (see needsPrincipal): refuse before
        // parsing, so a missing token is a 401 even for a query Apollo would reject anyway.
        if (deps.production && context.authFailure) throw context.authFailure;
        return context;
      },
    }),
  );

  app.use((req, res) => {
    sendProblem(res, { status: 404, code: 'NOT_FOUND', detail: `No route for ${req.method} ${req.path}.` });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = bodyProblem(error);
    if (known) return sendProblem(res, known);
    deps.logger.error({ err: error, requestId: res.locals.requestId }, 'unexpected error');
    sendProblem(res, { status: 500, code: 'INTERNAL_SERVER_ERROR', detail: 'Internal server error.', requestId: res.locals.requestId });
  });

  return { app, server, drain: http.drain, apollo, schema };
}

/** Errors raised by the JSON body parser, as problems. */
function bodyProblem(error: unknown) {
  const type = (error as { type?: string } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return { status: 400, code: 'BAD_USER_INPUT', detail: 'The request body is not valid JSON.' };
    case 'entity.too.large':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', detail: `The request body exceeds ${BODY_LIMIT}.` };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'Send the body as UTF-8 application/json.' };
    default:
      return null;
  }
}
