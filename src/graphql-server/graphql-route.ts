import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';
import {
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  print,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { requireAuthentication } from '../auth/authentication-gate.js';
import { errorHead, graphqlAnswerHead, graphqlMediaType } from '../errors/error-head.js';
import { checkOperation, errorsOutcome, type OperationCheckSettings } from './operation-checks.js';
import type { TrustedDocument, TrustedDocuments } from './trusted-documents.js';
import { inApolloOperationSpan, inOperationSpan } from '../observability/operation-span.js';
import { assertIdempotencyKey, type IdempotencyKeys, type StoredResponse } from '../idempotency/idempotency.js';
import { guardedCreate, readBackDocument } from '../idempotency/read-back.js';
import type { RateLimits } from '../limits/rate-limits.js';
import { callerOf, type ContextFactory, type RequestContext } from '../graphql/context.js';
import type { OperationOutcome } from '../observability/metrics.js';
import { badUserInput, responseTooLarge } from '../errors/errors.js';
import { queryCost } from './query-cost.js';
import { asGraphQLError, safeError } from '../errors/safe-errors.js';
import { inputErrors } from '../input/check-input.js';

export interface GraphqlRouteOptions {
  production: boolean;
  /** With the developer pages on, Sandbox and GraphiQL load the schema without a token. */
  developerPages: boolean;
  /** JSON body parsing, after the authentication check. */
  bodyParser: RequestHandler;
  idempotency: IdempotencyKeys;
  limits: RateLimits;
  responseMaxBytes: number;
  /** The frontends' manifest (GRAPHQL_TRUSTED_DOCUMENTS), or none. */
  trustedDocuments: TrustedDocuments;
  /** What Apollo's plugin checks; trusted documents are checked the same way. */
  checks: OperationCheckSettings;
}

/** An answer with Apollo's headers, as written to the client. */
interface GraphqlAnswer extends StoredResponse {
  headers: Record<string, string>;
}

/**
 * `/graphql`: Apollo Server's own request pipeline, called the way its Express integration
 * does, with what the service adds around it in one place:
 * - a refused token (or a missing one, unless the developer pages are on) is a 401 before the body is read;
 * - `Idempotency-Key` on a create mutation (spec section 7, src/idempotency/);
 * - the request's deadline (503 when it passes) and the response-size cap.
 */
export function graphqlRoute(
  schema: GraphQLSchema,
  apollo: ApolloServer<RequestContext>,
  createContext: ContextFactory,
  options: GraphqlRouteOptions,
): RequestHandler[] {
  // With the developer pages on (outside production by default) an introspection-only query
  // needs no token (Apollo Sandbox and GraphiQL load the
  // schema that way), so a request without one is read first; a token that was sent and
  // refused is a 401 whatever the body.
  const refuseUnauthenticated = requireAuthentication({ surface: 'graphql', anonymousIntrospection: options.developerPages });

  const answer = async (req: Request, res: Response): Promise<void> => {
    const { authentication } = res.locals;
    const sub = authentication.principal?.sub;
    // The access line (http/request-lifecycle.ts) adds the operation and the codes answered.
    const operation: OperationOutcome = {};
    res.locals.graphql = operation;
    const context = createContext({
      requestId: res.locals.requestId,
      startedAt: res.locals.startedAt,
      operation,
      authentication,
      spend: {
        graphqlCost: (cost) => (sub ? options.limits.spendGraphqlCost(sub, cost, res) : Promise.resolve()),
        creates: (count) => (sub ? options.limits.spendCreates(sub, count, res) : Promise.resolve()),
      },
    });
    // A request that waited its turn past its deadline is answered without being run.
    const work = context.deadline.expired
      ? Promise.resolve(errorAnswer(context.deadline.error(), req.get('accept')))
      : run(req, context).catch((error: unknown) => errorAnswer(error, req.get('accept'), context));
    // The caller's place in flight is held until this work settles, even if the answer goes first.
    res.locals.holdSlot?.(work);
    let result = await context.deadline.race(work, () => errorAnswer(context.deadline.error(), req.get('accept')));
    if (Buffer.byteLength(result.body) > options.responseMaxBytes) {
      context.logger.warn({ bytes: Buffer.byteLength(result.body) }, 'response over RESPONSE_MAX_BYTES refused');
      result = errorAnswer(responseTooLarge(options.responseMaxBytes), req.get('accept'));
    }
    operation.codes = errorCodes(result.body);
    res.status(result.status).set(result.headers).type(result.contentType).send(result.body);
  };

  /**
   * A trusted document runs prepared, anything else through Apollo Server; a create mutation
   * with an Idempotency-Key either way through the key's record.
   */
  const run = async (req: Request, context: RequestContext): Promise<GraphqlAnswer> => {
    if (bareGet(req, options.developerPages))
      throw new GraphQLError(bareGetHint(options.developerPages), { extensions: { code: 'BAD_REQUEST' } });
    const trusted = options.trustedDocuments.find(req);
    const execute = trusted
      ? () => executeTrusted(schema, trusted, context, req, options.checks)
      : () => executeThroughApollo(apollo, req, context);
    const key = req.method === 'POST' ? req.get('idempotency-key') : undefined;
    if (key === undefined || !context.principal) return execute();
    const mutation = trusted
      ? trusted.operation.operation === 'mutation'
        ? { document: trusted.parsed, operation: trusted.operation }
        : null
      : parsedMutation(req.body);
    return mutation ? answerIdempotently(schema, context, options.idempotency, req, key, mutation, execute) : execute();
  };

  return [refuseUnauthenticated, options.bodyParser, (req, res, next) => void answer(req, res).catch(next)];
}

/**
 * A GET with no query string at all (curl, a link) that Apollo would not answer with Sandbox: it
 * asks for nothing, so it gets one line on what to send, not Apollo's CSRF paragraph (issue 25,
 * F11). A GET that sends a query still meets the CSRF rule. Sandbox is Apollo's answer to a
 * GET that prefers HTML, as Apollo decides it (text/html before JSON in Accept).
 */
function bareGet(req: Request, developerPages: boolean): boolean {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || req.url.includes('?')) return false;
  return !(developerPages && req.accepts(['application/json', 'text/html']) === 'text/html');
}

function bareGetHint(developerPages: boolean): string {
  const send =
    'Send a GraphQL operation: POST /graphql with a JSON body {"query": "{ viewer { sub } }"} and Authorization: Bearer <token>.';
  return developerPages ? `${send} In a browser: GraphiQL at /graphiql, Apollo Sandbox at /graphql.` : send;
}

/** The mutation a POST body asks for, when it is one; anything else goes to Apollo as it is. */
function parsedMutation(body: unknown): { document: DocumentNode; operation: OperationDefinitionNode } | null {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return null;
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return null; // Apollo reports the syntax error
  }
  // The operation the request names: a document may hold several.
  const operation = getOperationAST(document, typeof operationName === 'string' ? operationName : undefined);
  return operation?.operation === 'mutation' ? { document, operation } : null;
}

/** A create mutation with an Idempotency-Key: replayed, rebuilt from its record, or run once. */
async function answerIdempotently(
  schema: GraphQLSchema,
  context: RequestContext,
  keys: IdempotencyKeys,
  req: Request,
  key: string,
  { document, operation }: { document: DocumentNode; operation: OperationDefinitionNode },
  runOnce: () => Promise<GraphqlAnswer>,
): Promise<GraphqlAnswer> {
  assertIdempotencyKey(key);
  const create = guardedCreate(operation);
  if (!create) {
    throw badUserInput([{ path: 'Idempotency-Key', message: 'can only be sent with a mutation of exactly one create field' }]);
  }
  const body = req.body as { variables?: Record<string, unknown>; operationName?: unknown };
  // As at Stripe, variables that fail their checks are answered before the key is claimed:
  // nothing started, nothing is kept (Apollo's own pipeline checks them again, unchanged).
  const invalid = await inputErrors(schema, operation, body.variables);
  if (invalid.length > 0) throw badUserInput(invalid);
  const { response, replayed } = await keys.run(
    context.db,
    {
      // Only a create of a caller with a principal gets here: the operation checks refused the rest.
      principal: callerOf(context),
      operation: `graphql ${create.name.value}`,
      key,
      // The request as compared between retries: the query's formatting does not matter.
      request: { query: print(document), variables: body.variables ?? {}, operationName: body.operationName ?? null },
    },
    {
      execute: async (recorder) => {
        context.idempotency = recorder;
        return runOnce();
      },
      rebuild: async (created) => {
        const readBack = readBackDocument(document, operation, created);
        // A rebuilt answer runs its selection again: it spends the caller's cost budget like any query.
        await context.spend.graphqlCost(queryCost(schema, readBack, { variables: body.variables }));
        const result = await execute({ schema, document: readBack, contextValue: context, variableValues: body.variables });
        const errors = result.errors?.map((error) => safeError(error).safe);
        return {
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify(errors ? { errors, data: result.data } : { data: result.data }),
        };
      },
      // As on REST, every answer below 500 of a create that started is kept; not a refusal before
      // execution (parse, validation, cost: its corrected retry must run, not meet a 422) nor a 429.
      keep: (answer) => answer.status < 500 && answer.status !== 429 && !refusedBeforeExecution(answer.body),
    },
  );
  const headers = (response as Partial<GraphqlAnswer>).headers ?? {};
  return { ...response, headers: replayed ? { ...headers, 'Idempotent-Replayed': 'true' } : headers };
}

/**
 * A trusted document (trusted-documents.ts): the checks Apollo's plugin makes (operation-checks.ts),
 * then the compiled document, then the same answer Apollo would give: safe errors, one status
 * per code, no `data` in a refusal. Apollo's pipeline (its document cache, plugins hooks,
 * response formatting) is skipped: that is most of what a GraphQL request costs beyond REST.
 */
async function executeTrusted(
  schema: GraphQLSchema,
  trusted: TrustedDocument,
  context: RequestContext,
  req: Request,
  settings: OperationCheckSettings,
): Promise<GraphqlAnswer> {
  // The rules Apollo Server applies to a document sent as text hold for a trusted one too: its
  // CSRF check, and no mutation by GET (a link or an <img> must not write).
  assertPreflighted(req);
  const { operation, parsed } = trusted;
  if (req.method !== 'POST' && operation.operation === 'mutation') {
    // Apollo Server 5's own answer for a text document, word for word (400, as GraphQL over HTTP allows).
    throw new GraphQLError('GET requests only support query operations, not mutation operations', { extensions: { code: 'BAD_REQUEST' } });
  }
  const { variables, operationName } =
    req.method === 'POST' ? (req.body as { variables?: unknown; operationName?: unknown }) : fieldsOfGet(req);
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    throw new GraphQLError('`variables` must be a JSON object.', { extensions: { code: 'BAD_REQUEST' } });
  }
  if (typeof operationName === 'string' && operationName !== (operation.name?.value ?? '')) {
    throw new GraphQLError('The trusted document holds no operation of this name.', {
      extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
    });
  }
  const values = (variables ?? {}) as Record<string, unknown>;
  await checkOperation(context, { schema, document: parsed, operation, variables: values, operationName: operation.name?.value }, settings);
  const result = await inOperationSpan(operation, async () => trusted.compiled.query(undefined, context, values));
  const contentType = graphqlMediaType(req.get('accept'));
  if (!result.errors?.length) return { status: 200, contentType, body: JSON.stringify({ data: result.data }), headers: {} };
  const errors = result.errors.map((error) => {
    const { safe, unexpected } = safeError(asGraphQLError(error));
    if (unexpected) context.logger.error({ err: error.originalError ?? error }, 'unexpected error in a GraphQL request');
    return safe;
  });
  const { status, refused, headers } = errorsOutcome(errors, contentType, context.requestId);
  return { status, contentType, body: JSON.stringify(refused ? { errors } : { errors, data: result.data }), headers };
}

/** A GET's `variables` (JSON in the query string, as GraphQL over HTTP sends it) and `operationName`. */
function fieldsOfGet(req: Request): { variables?: unknown; operationName?: unknown } {
  const { variables, operationName } = req.query as Record<string, unknown>;
  if (variables === undefined) return { operationName };
  if (typeof variables !== 'string')
    throw new GraphQLError('`variables` must be given once, as JSON.', { extensions: { code: 'BAD_REQUEST' } });
  try {
    return { variables: JSON.parse(variables) as unknown, operationName };
  } catch {
    throw new GraphQLError('`variables` in the query string must be JSON.', { extensions: { code: 'BAD_REQUEST' } });
  }
}

/** Content types a browser sends cross-origin without a preflight (Apollo Server's csrfPrevention). */
const SIMPLE_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
const PREFLIGHT_HEADERS = ['x-apollo-operation-name', 'apollo-require-preflight'];

/**
 * Apollo Server's CSRF prevention, for the requests that do not reach it: a request must carry
 * a content type a browser would preflight, or one of Apollo's headers; otherwise a page on any
 * origin could have a browser send it with the user's cookies or network position.
 */
function assertPreflighted(req: Request): void {
  const contentType = req.get('content-type');
  if (contentType !== undefined && !SIMPLE_CONTENT_TYPES.includes(contentType.split(';')[0].trim().toLowerCase())) return;
  if (PREFLIGHT_HEADERS.some((name) => (req.get(name) ?? '').length > 0)) return;
  throw new GraphQLError(
    `This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of ${SIMPLE_CONTENT_TYPES.join(', ')}) or provide a non-empty value for one of the following headers: ${PREFLIGHT_HEADERS.join(', ')}`,
    { extensions: { code: 'BAD_REQUEST' } },
  );
}

async function executeThroughApollo(apollo: ApolloServer<RequestContext>, req: Request, context: RequestContext): Promise<GraphqlAnswer> {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  const result = await inApolloOperationSpan(() =>
    apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: searchOf(req.url), body: req.body },
      context: async () => context,
    }),
  );
  let body = '';
  if (result.body.kind === 'complete') body = result.body.string;
  else for await (const chunk of result.body.asyncIterator) body += chunk;
  const answerHeaders = Object.fromEntries(result.headers);
  delete answerHeaders['content-type'];
  return {
    status: result.status ?? 200,
    contentType: result.headers.get('content-type') ?? 'application/json',
    body,
    headers: answerHeaders,
  };
}

function searchOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start);
}

/**
 * An error as a GraphQL answer, with the status its code has on `/graphql` for the media type
 * the client accepts; an unexpected one is logged once, here (a lost database is a 503).
 */
function errorAnswer(error: unknown, accept: string | undefined, context?: RequestContext): GraphqlAnswer {
  const graphqlError = asGraphQLError(error);
  const { safe, unexpected } = safeError(graphqlError);
  if (unexpected) context?.logger.error({ err: graphqlError.originalError ?? graphqlError }, 'unexpected error in a GraphQL request');
  const { headers } = errorHead(graphqlError);
  const contentType = graphqlMediaType(accept);
  const { status } = graphqlAnswerHead([safe.extensions.code], contentType);
  return { status, contentType, body: JSON.stringify({ errors: [safe] }), headers };
}

/** Whether the answer is graphql-js's or Apollo's refusal of the document, before any resolver ran. */
function refusedBeforeExecution(body: string): boolean {
  try {
    const { errors } = JSON.parse(body) as { errors?: Array<{ extensions?: { code?: string } }> };
    return (errors ?? []).some((error) =>
      ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST'].includes(error.extensions?.code ?? ''),
    );
  } catch {
    return true;
  }
}

/** The distinct `extensions.code`s of an answer's errors; parsed only when it has errors. */
function errorCodes(body: string): string[] | undefined {
  if (!body.includes('"errors"')) return undefined;
  try {
    const { errors } = JSON.parse(body) as { errors?: Array<{ extensions?: { code?: string } }> };
    return errors ? [...new Set(errors.map((error) => error.extensions?.code ?? 'UNKNOWN'))] : undefined;
  } catch {
    return undefined;
  }
}
