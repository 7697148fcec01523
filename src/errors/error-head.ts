import type { Request, Response } from 'express';
import Negotiator from 'negotiator';
import type { GraphQLError } from 'graphql';
import { RETRY_AFTER_SECONDS, ServiceError } from './errors.js';
import { PROBLEM_JSON, problemBody } from './problem.js';
import { safeError, statusOf } from './safe-errors.js';

/** An error as HTTP: its status and the headers that go with it. */
export interface ErrorHead {
  status: number;
  headers: Record<string, string>;
}

/**
 * The one place an error becomes an HTTP status and headers, for REST, `/graphql`, the
 * idempotency replay, the limits and `/readyz`: the status from the error's code (spec
 * section 6), the headers a ServiceError carries, and `Retry-After` on every 503.
 */
export function errorHead(error: GraphQLError): ErrorHead {
  // A ServiceError thrown in a resolver arrives wrapped by graphql-js: its headers still count.
  const carried = error instanceof ServiceError ? error : error.originalError instanceof ServiceError ? error.originalError : null;
  return headFor(safeError(error).safe.extensions.code, carried?.headers ?? {});
}

/** The HTTP head of an error code (and the headers its error carries). */
export function headFor(code: string, carried: Readonly<Record<string, string>> = {}): ErrorHead {
  const status = statusOf(code);
  const headers = { ...carried };
  if (status === 503) headers['retry-after'] ??= RETRY_AFTER_SECONDS;
  return { status, headers };
}

/**
 * Codes for a GraphQL request that cannot run as sent: the document does not parse or
 * validate, or its input breaks a rule (wherever the rule is checked: before execution or by
 * a resolver). GraphQL over HTTP answers these 400 under `application/graphql-response+json`
 * and 200 under `application/json`.
 */
const GRAPHQL_REQUEST_ERRORS = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PERSISTED_QUERY_NOT_IN_LIST',
]);

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

/**
 * The HTTP status of a `/graphql` answer, from its errors' codes alone (docs/spec.md section 6,
 * "GraphQL over HTTP"), so that one code has one status whichever check found it:
 * - `NOT_FOUND` is a field error: the field is null, the rest of `data` stands, HTTP 200;
 * - any other code refuses the request as a whole: no `data`, and the status of its code: 400
 *   (or 200 under `application/json`) for the request errors above, else the REST status
 *   (`BAD_REQUEST`, a request that is not GraphQL at all, is 400);
 * several refusals: the highest status.
 */
export function graphqlAnswerHead(codes: readonly string[], mediaType: string): { status: number; refused: boolean } {
  let status = 200;
  let refused = false;
  for (const code of codes) {
    if (code === 'NOT_FOUND') continue;
    refused = true;
    const codeStatus = GRAPHQL_REQUEST_ERRORS.has(code) ? (mediaType === GRAPHQL_RESPONSE_JSON ? 400 : 200) : statusOf(code);
    status = Math.max(status, codeStatus);
  }
  return { status, refused };
}

/**
 * The media type of a `/graphql` answer for this Accept header, as Apollo Server chooses it:
 * `application/json` without one, or when it is preferred or tied.
 */
export function graphqlMediaType(accept: string | undefined): string {
  if (!accept) return 'application/json';
  const preferred = new Negotiator({ headers: { accept } }).mediaType(['application/json', GRAPHQL_RESPONSE_JSON]);
  return preferred ?? 'application/json';
}

/**
 * An error that ends a `/graphql` request before execution, with its HTTP head in
 * `extensions.http`: Apollo Server merges that into the response and strips it from the body.
 * Errors raised during execution keep HTTP 200, as GraphQL over HTTP asks.
 */
export function beforeExecution<E extends GraphQLError>(error: E): E {
  const { status, headers } = errorHead(error);
  error.extensions.http = { status, headers: new Map(Object.entries(headers)) };
  return error;
}

/**
 * Whether Express routes this request to `app.use('/graphql', ...)`: that mount matches without
 * regard to case and also below it (`/GraphQL`, `/graphql/`), so an exact comparison would
 * answer those with problem+json instead of GraphQL's `{ errors }`.
 */
export function servedByGraphql(req: Request): boolean {
  const path = req.originalUrl.split('?')[0].toLowerCase();
  return path === '/graphql' || path === '/graphql/';
}

/**
 * Answers a request with one expected error, shaped for where it was sent: GraphQL's
 * `{ errors }` on `/graphql`, RFC 9457 problem+json everywhere else.
 */
export function sendError(req: Request, res: Response, error: GraphQLError): void {
  const { status, headers } = errorHead(error);
  const { safe } = safeError(error);
  res.status(status).set(headers);
  if (servedByGraphql(req)) {
    const mediaType = graphqlMediaType(req.get('accept'));
    // For the access line (spec section 13), as graphql-route.ts records it for answers it makes.
    res.locals.graphql = { ...res.locals.graphql, codes: [safe.extensions.code] };
    res.status(graphqlAnswerHead([safe.extensions.code], mediaType).status);
    res.type(mediaType).send(JSON.stringify({ errors: [safe] }));
    return;
  }
  const { errors } = safe.extensions as { errors?: [] };
  // For the access line, as /graphql's carries its codes (spec section 13; review F15).
  res.locals.codes = [safe.extensions.code];
  const requestId = status === 500 ? res.locals.requestId : undefined;
  res.type(PROBLEM_JSON).send(problemBody({ status, code: safe.extensions.code, detail: safe.message, errors, requestId }));
}
