import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { GraphQLError, execute, getNamedType, isInputObjectType, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { closestName } from '../values/edit-distance.js';
import { requireAuthentication } from '../auth/authentication-gate.js';
import type { Principal } from '../auth/principal.js';
import type { AuthenticatedContext, ContextFactory, RequestContext } from '../graphql/context.js';
import { badUserInput, notFound, responseTooLarge, ServiceError, type FieldError } from '../errors/errors.js';
import { asGraphQLError, safeError, statusOf } from '../errors/safe-errors.js';
import { errorHead, sendError } from '../errors/error-head.js';
import { assertIdempotencyKey, type CreatedRecord, type IdempotencyKeys } from '../idempotency/idempotency.js';
import { readBackDocument } from '../idempotency/read-back.js';
import type { RateLimits } from '../limits/rate-limits.js';
import { inputErrors } from '../input/check-input.js';
import { variableTypes } from '../input/walk-input.js';
import { inputFromBody } from './input-from-body.js';
import { PROBLEM_JSON, problemBody } from '../errors/problem.js';
import { REST_ROUTES, type GetRoute, type PostRoute, type RestRoute } from './routes.js';
import { prepareDocument, type PreparedDocument } from '../graphql-server/prepared-document.js';
import { inOperationSpan } from '../observability/operation-span.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of routes of different Data: any stands for "some Data", checked per route in routes.ts.
type PreparedRoute = (GetRoute<any> & PreparedDocument) | (PostRoute<any> & PreparedDocument & { bodyType: GraphQLInputType });

/** The media types a body is parsed as: JSON, and for a change also a JSON merge patch (RFC 7396). */
export const REST_BODY_TYPES = ['application/json', 'application/merge-patch+json'];

/** A finished answer: written to the client, or kept for an idempotent replay. */
interface Answer {
  status: number;
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

export interface RestOptions {
  /** JSON body parsing, only on the POST routes, after authentication. */
  bodyParser: RequestHandler;
  idempotency: IdempotencyKeys;
  limits: RateLimits;
  responseMaxBytes: number;
}

/**
 * The `/api/v1` routes over the GraphQL schema, as SOFA does it: documents prepared (and
 * compiled) once, each request builds the same context as `/graphql` and executes. Statuses
 * come from the errors' codes (the highest wins); errors are problem+json. Before any body is
 * read, a request without a principal gets its 401 and a POST is charged to its caller's
 * creates budget. POSTs honour Idempotency-Key. Every request has a deadline. The routes are
 * registered on the app itself: a nested Router is one more dispatch (and its closures) on
 * every request.
 */
export function mountRestRoutes(
  router: Pick<Router, 'get' | 'post' | 'patch' | 'delete' | 'all'>,
  schema: GraphQLSchema,
  createContext: ContextFactory,
  options: RestOptions,
): void {
  const paths = new Map<string, string[]>();
  for (const route of REST_ROUTES.map((route) => prepare(schema, route))) {
    paths.set(route.path, [...(paths.get(route.path) ?? []), route.method]);
    const handler = (req: Request, res: Response, next: NextFunction) => run(schema, route, createContext, options, req, res).catch(next);
    if (route.method === 'GET') router.get(route.path, requirePrincipal, handler);
    else if (route.method === 'DELETE') router.delete(route.path, requirePrincipal, handler);
    else if (route.method === 'PATCH')
      router.patch(route.path, requirePrincipal, spendCreate(options.limits), requireMergePatchBody, options.bodyParser, handler);
    else router.post(route.path, requirePrincipal, spendCreate(options.limits), requireJsonBody, options.bodyParser, handler);
  }
  for (const [path, methods] of paths) {
    const allow = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    router.all(path, (req, res) =>
      sendError(
        req,
        res,
        new ServiceError(
          'METHOD_NOT_ALLOWED',
          `${req.method} is not allowed here; use ${allow.join(', ')}.`,
          {},
          { Allow: allow.join(', ') },
        ),
      ),
    );
  }
}

/** Every REST route needs a principal: without one, the 401 comes before the body is read. */
const requirePrincipal = requireAuthentication({ surface: 'rest' });

/** A POST creates, a PATCH changes: each is charged to the caller's creates budget (shared by all instances). */
function spendCreate(limits: RateLimits) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const { authentication } = res.locals;
    // requirePrincipal has answered a request without one: this only narrows the type.
    if (authentication.principal === null) return sendError(req, res, authentication.failure);
    limits.spendCreates(authentication.principal.sub, 1, res).then(
      () => next(),
      (error) => (error instanceof ServiceError ? sendError(req, res, error) : next(error)),
    );
  };
}

/** POSTs carry JSON: anything else is 415 before the body is read. */
function requireJsonBody(req: Request, res: Response, next: NextFunction): void {
  if (!req.is('application/json')) {
    return sendError(req, res, new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.'));
  }
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

/** A create (POST) or a change (PATCH): its body is a variable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- "a PostRoute of some Data", as RestRoute.
function hasBody<R extends RestRoute>(route: R): route is Extract<R, PostRoute<any>> {
  return route.method === 'POST' || route.method === 'PATCH';
}

function prepare(schema: GraphQLSchema, route: RestRoute): PreparedRoute {
  const prepared = prepareDocument(schema, route.document, `The REST document for ${route.method} ${route.path}`);
  if (!hasBody(route)) return { ...route, ...prepared };
  const bodyType = variableTypes(schema, prepared.operation).find((variable) => variable.name === route.bodyVariable)?.type;
  if (!bodyType) throw new Error(`REST document for ${route.method} ${route.path} declares no $${route.bodyVariable}`);
  return { ...route, ...prepared, bodyType };
}

async function run(
  schema: GraphQLSchema,
  route: PreparedRoute,
  createContext: ContextFactory,
  options: RestOptions,
  req: Request,
  res: Response,
): Promise<void> {
  const { authentication } = res.locals;
  // requirePrincipal has answered a request without one: this only narrows the type.
  if (authentication.principal === null) return sendError(req, res, authentication.failure);
  const { principal } = authentication;
  const context = createContext({
    requestId: res.locals.requestId,
    startedAt: res.locals.startedAt,
    authentication,
    spend: {
      graphqlCost: () => Promise.resolve(),
      creates: (count) => options.limits.spendCreates(principal.sub, count, res),
    },
  });
  const key = hasBody(route) ? req.get('idempotency-key') : undefined;
  // A request that waited its turn past its deadline is answered without being run.
  const work = context.deadline.expired
    ? Promise.resolve(errorAnswer(context, [context.deadline.error()]))
    : (key === undefined
        ? answerRequest(schema, route, context, req)
        : answerIdempotently(schema, route, context, options, req, key)
      ).catch((error: unknown) => errorAnswer(context, [asGraphQLError(error)]));
  // The caller's place in flight is held until this work settles, even if the answer goes first.
  res.locals.holdSlot?.(work);
  let answer = withEtag(route, await context.deadline.race(work, () => errorAnswer(context, [context.deadline.error()])));
  if (Buffer.byteLength(answer.body) > options.responseMaxBytes) {
    context.logger.warn({ bytes: Buffer.byteLength(answer.body) }, 'response over RESPONSE_MAX_BYTES refused');
    answer = errorAnswer(context, [responseTooLarge(options.responseMaxBytes)]);
  }
  // The access line carries the answer's code, as /graphql's carries its codes (spec section 13;
  // review F15). Read from the body: a replayed answer is only what was kept.
  if (answer.contentType === PROBLEM_JSON) res.locals.codes = [problemCode(answer.body)];
  res.status(answer.status).set(answer.headers).type(answer.contentType).send(answer.body);
}

/** A problem+json body's `code` (the service wrote it; a problem body is small). */
function problemCode(body: string): string | undefined {
  try {
    const { code } = JSON.parse(body) as { code?: unknown };
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A POST with an Idempotency-Key: replayed, rebuilt from its record, or run once. As at Stripe,
 * a body that fails its checks is answered before the key is claimed: no request started, so
 * nothing is kept, and the key still works once the body is fixed.
 */
async function answerIdempotently(
  schema: GraphQLSchema,
  route: PreparedRoute,
  context: AuthenticatedContext,
  options: RestOptions,
  req: Request,
  key: string,
): Promise<Answer> {
  assertIdempotencyKey(key);
  const variables = await checkedVariables(schema, route, req, context.principal);
  const { response, replayed } = await options.idempotency.run(
    context.db,
    // A change's If-Match is part of what it asks: the same key with another precondition is another request.
    {
      principal: context.principal,
      operation: idempotencyOperation(route, req),
      key,
      request: route.method === 'PATCH' ? { body: req.body, ifMatch: req.get('if-match') ?? null } : req.body,
    },
    {
      execute: (recorder) => {
        context.idempotency = recorder;
        return executeRoute(route, context, variables);
      },
      rebuild: (created) => rebuildAnswer(schema, route, context, variables, created),
      keep: (answer) => answer.status < 500 && answer.status !== 429,
    },
  );
  const headers = (response as Partial<Answer>).headers ?? {};
  return { ...response, headers: replayed ? { ...headers, 'Idempotent-Replayed': 'true' } : headers };
}

/**
 * What a key is scoped to besides the caller: the route, and the record its path names (one
 * key sent to two policies' reinstatement, both with the body `{}`, is two requests).
 */
function idempotencyOperation(route: PreparedRoute, req: Request): string {
  const operation = `${route.method} ${route.path}`;
  return hasBody(route) && route.pathVariables ? `${operation} ${JSON.stringify(route.pathVariables(req.params))}` : operation;
}

/** Runs the route's document for this request; expected failures are answers too. */
async function answerRequest(schema: GraphQLSchema, route: PreparedRoute, context: AuthenticatedContext, req: Request): Promise<Answer> {
  return executeRoute(route, context, await checkedVariables(schema, route, req, context.principal));
}

/** The request's variables, once every input check has passed (else BAD_USER_INPUT with the list). */
async function checkedVariables(
  schema: GraphQLSchema,
  route: PreparedRoute,
  req: Request,
  principal: Principal,
): Promise<Record<string, unknown>> {
  const variables = variablesOf(route, req, principal);
  const invalid = [
    ...refusedFieldErrors(route, req.body),
    ...unknownFieldErrors(route, req.body),
    ...(await inputErrors(schema, route.operation, variables)),
  ];
  if (invalid.length > 0) throw badUserInput(invalid);
  return variables;
}

async function executeRoute(route: PreparedRoute, context: RequestContext, variables: Record<string, unknown>): Promise<Answer> {
  try {
    const result = await inOperationSpan(route.operation, async () => route.compiled.query(undefined, context, variables));
    if (result.errors?.length) return errorAnswer(context, result.errors);
    const response = route.response(result.data);
    // A DELETE that happened answers 204 with no body.
    if (route.method === 'DELETE') return { status: 204, contentType: 'application/json', body: '', headers: {} };
    return { status: 200, contentType: 'application/json', body: JSON.stringify(response), headers: {} };
  } catch (error) {
    if (error instanceof ServiceError) return errorAnswer(context, [error]);
    throw error;
  }
}

/** The answer of a create that already happened, read back from the record it made. */
async function rebuildAnswer(
  schema: GraphQLSchema,
  route: PreparedRoute,
  context: AuthenticatedContext,
  variables: Record<string, unknown>,
  created: CreatedRecord,
): Promise<Answer> {
  if (hasBody(route) && route.rebuild) {
    const body = await route.rebuild(context, created);
    if (body === null) return errorAnswer(context, [notFound('What this request created is gone.')]);
    return { status: 200, contentType: 'application/json', body: JSON.stringify(body), headers: {} };
  }
  const document = readBackDocument(route.parsed, route.operation, created);
  const result = await execute({ schema, document, contextValue: context, variableValues: variables });
  if (result.errors?.length) return errorAnswer(context, result.errors);
  return { status: 200, contentType: 'application/json', body: JSON.stringify(route.response(result.data)), headers: {} };
}

/** The route's refused fields present in the body (variablesOf has checked it is an object). */
function refusedFieldErrors(route: PreparedRoute, body: Record<string, unknown>): FieldError[] {
  if (!hasBody(route) || !route.refusedFields) return [];
  return Object.entries(route.refusedFields)
    .filter(([field]) => Object.hasOwn(body, field))
    .map(([path, message]) => ({ path, message }));
}

/**
 * A closed body's top-level fields that its input type does not have (contract section 18), in
 * the body's order, each with the request's field within two edits when there is one. A refused
 * field has its own message (refusedFieldErrors).
 */
function unknownFieldErrors(route: PreparedRoute, body: Record<string, unknown>): FieldError[] {
  const type = hasBody(route) ? getNamedType(route.bodyType) : null;
  if (!hasBody(route) || !route.closedBody || !isInputObjectType(type)) return [];
  const names = Object.keys(type.getFields());
  return Object.keys(body)
    .filter((field) => !names.includes(field) && !Object.hasOwn(route.refusedFields ?? {}, field))
    .map((path) => {
      const near = closestName(path, names);
      return { path, message: `is not a field of this request${near === null ? '' : `; did you mean "${near}"?`}` };
    });
}

function variablesOf(route: PreparedRoute, req: Request, principal: Principal): Record<string, unknown> {
  if (!hasBody(route)) return route.variables(req, principal);
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    throw badUserInput([], 'The request body must be a JSON object.');
  }
  return {
    ...route.pathVariables?.(req.params),
    ...route.headerVariables?.(req),
    [route.bodyVariable]: inputFromBody(req.body, route.bodyType),
  };
}

/**
 * A 200 of a route whose body carries the record's version gets `ETag: "<version>"` (contract
 * section 15), also when replayed: a kept answer keeps its body, not its headers.
 */
function withEtag(route: PreparedRoute, answer: Answer): Answer {
  if (!route.etag || answer.status !== 200) return answer;
  const version = (JSON.parse(answer.body) as { version?: unknown }).version;
  return typeof version === 'number' ? { ...answer, headers: { ...answer.headers, ETag: `"${version}"` } } : answer;
}

/** One problem for the request: the error with the highest status decides. */
function errorAnswer(context: RequestContext, errors: readonly GraphQLError[]): Answer {
  const judged = errors.map((error) => ({ error, ...safeError(error) }));
  for (const { error, unexpected } of judged) {
    if (unexpected) context.logger.error({ err: error.originalError ?? error }, 'unexpected error in a REST request');
  }
  const worst = judged.reduce((a, b) => (statusOf(b.safe.extensions.code) > statusOf(a.safe.extensions.code) ? b : a));
  const { code, errors: fieldErrors } = worst.safe.extensions as { code: string; errors?: [] };
  const { status, headers } = errorHead(worst.error);
  const body = problemBody({
    status,
    code,
    detail: worst.safe.message,
    errors: fieldErrors,
    requestId: status === 500 ? context.requestId : undefined,
  });
  return { status, contentType: PROBLEM_JSON, body, headers };
}
