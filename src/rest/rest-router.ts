import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { requireAuthentication } from '../http/authentication-gate.js';
import { ServiceError } from '../errors/errors.js';
import { passes } from '../http/rate-limit-gate.js';
import { sendError, writeAnswer } from '../http/write-answer.js';
import type { RateLimits } from '../limits/rate-limits.js';
import type { OperationCore } from '../operations/operation-core.js';
import { answerRoute, hasBody, prepareRoute, type RestCall } from './rest-operation.js';
import { REST_ROUTES } from './routes.js';
import { requestClient } from '../http/request-client.js';

/** The media types a body is parsed as: JSON, and for a change also a JSON merge patch (RFC 7396). */
export const REST_BODY_TYPES = ['application/json', 'application/merge-patch+json'];

export interface RestOptions {
  /** JSON body parsing, only on the POST and PATCH routes, after authentication. */
  bodyParser: RequestHandler;
  limits: RateLimits;
}

/**
 * The `/api/v1` routes, as adapters of the operation core: before any body is read, a request
 * without a principal gets its 401, a write is charged to its caller's creates budget as its
 * mutation declares, a POST or PATCH must be JSON (415); then the route's answer (rest-operation.ts) is made by the core and sent
 * by the one writer. The routes are registered on the app itself: a nested Router is one more
 * dispatch (and its closures) on every request.
 */
export function mountRestRoutes(
  router: Pick<Router, 'get' | 'post' | 'patch' | 'delete' | 'all'>,
  schema: GraphQLSchema,
  core: OperationCore,
  options: RestOptions,
): void {
  const paths = new Map<string, string[]>();
  for (const route of REST_ROUTES.map((route) => prepareRoute(schema, route))) {
    paths.set(route.path, [...(paths.get(route.path) ?? []), route.method]);
    const handler = (req: Request, res: Response, next: NextFunction) =>
      void answerRoute(core, schema, route, restCall(req, res)).then((result) => writeAnswer(req, res, result), next);
    // A route spends the budget its mutation declares (graphql/write.ts), as the same mutation does on `/graphql`.
    const spend = route.creates > 0 ? [spendCreates(options.limits, route.creates)] : [];
    if (!hasBody(route)) router[route.method === 'GET' ? 'get' : 'delete'](route.path, requirePrincipal, ...spend, handler);
    else {
      const bodyType = route.method === 'PATCH' ? requireMergePatchBody : requireJsonBody;
      router[route.method === 'PATCH' ? 'patch' : 'post'](route.path, requirePrincipal, ...spend, bodyType, options.bodyParser, handler);
    }
  }
  for (const [path, methods] of paths) {
    const allow = (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
    router.all(path, (req, res) =>
      sendError(req, res, new ServiceError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; use ${allow}.`, {}, { Allow: allow })),
    );
  }
}

/** The request as the operation core reads it (rest-operation.ts), from Express's request and what the steps before put on `res.locals`. */
function restCall(req: Request, res: Response): RestCall {
  const { authentication, requestId, startedAt, holdSlot } = res.locals;
  return {
    requestId,
    client: requestClient(req),
    startedAt,
    authentication,
    holdSlot,
    params: req.params as Record<string, string>,
    query: req.query,
    body: req.body as unknown,
    header: (name) => req.get(name),
  };
}

/** Every REST route needs a principal: without one, the 401 comes before the body is read. */
const requirePrincipal = requireAuthentication({ surface: 'rest' });

/** A write is charged to the caller's creates budget (shared by all instances) before its body is read. */
function spendCreates(limits: RateLimits, count: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const { authentication } = res.locals;
    // requirePrincipal has answered a request without one: this only narrows the type.
    if (authentication.principal === null) return sendError(req, res, authentication.failure);
    limits.spendCreates(authentication.principal.sub, count).then((decision) => {
      if (passes(req, res, decision)) next();
    }, next);
  };
}

/**
 * POSTs carry JSON: anything else is 415 before the body is read. A POST with no body at all
 * (`curl -X POST .../test`) is read as `{}`: a step that needs nothing (a test event, a rotation
 * with its default grace) just works, and one that needs fields lists them in its 400, which says
 * more than a 415 about a media type that was never sent.
 */
function requireJsonBody(req: Request, res: Response, next: NextFunction): void {
  // No body: none declared (curl -X POST), or an empty one without a type (fetch sends Content-Length: 0).
  if (req.is('application/json') === null || (req.get('content-type') === undefined && req.get('content-length') === '0')) {
    req.body = {};
    return next();
  }
  if (!req.is('application/json'))
    return sendError(req, res, new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.'));
  next();
}

/** A PATCH carries a JSON merge patch (RFC 7396), as `application/merge-patch+json` or plain JSON: anything else is 415. */
function requireMergePatchBody(req: Request, res: Response, next: NextFunction): void {
  if (!req.is(REST_BODY_TYPES)) {
    return sendError(
      req,
      res,
      new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/merge-patch+json or application/json.'),
    );
  }
  next();
}
