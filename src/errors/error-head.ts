import type { Request, Response } from 'express';
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
function servedByGraphql(req: Request): boolean {
  const path = req.originalUrl.split('?')[0].toLowerCase();
  return path === '/graphql' || path.startsWith('/graphql/');
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
    res.type('application/json').send(JSON.stringify({ errors: [safe] }));
    return;
  }
  const { errors } = safe.extensions as { errors?: [] };
  const requestId = status === 500 ? (res.locals.requestId as string | undefined) : undefined;
  res.type(PROBLEM_JSON).send(problemBody({ status, code: safe.extensions.code, detail: safe.message, errors, requestId }));
}
