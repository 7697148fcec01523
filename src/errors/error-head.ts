import type { HeaderMap } from '@apollo/server';
import type { Request, Response } from 'express';
import type { GraphQLError } from 'graphql';
import { RETRY_AFTER_SECONDS, ServiceError } from './errors.js';
import { safeError, statusOf } from './safe-errors.js';
import { PROBLEM_JSON, problemBody } from './problem.js';

/** An error as HTTP: its status and the headers that go with it. */
export interface ErrorHead {
  status: number;
  headers: Record<string, string>;
}

/**
 * The one place an error becomes an HTTP status and headers, for REST, `/graphql`, the
 * idempotency replay and the limits: the status from the error's code (spec section 6),
 * the headers the error carries in `extensions.http` (WWW-Authenticate, Retry-After), and
 * `Retry-After` on every 503.
 */
export function errorHead(error: GraphQLError): ErrorHead {
  const { safe } = safeError(error);
  const status = statusOf(safe.extensions.code);
  const headers: Record<string, string> = {};
  const http = error.extensions?.http as { headers?: HeaderMap } | undefined;
  for (const [name, value] of http?.headers ?? []) headers[name] = value;
  if (status === 503) headers['retry-after'] ??= RETRY_AFTER_SECONDS;
  return { status, headers };
}

/**
 * Answers a request with one expected error, shaped for where it was sent: GraphQL's
 * `{ errors }` on `/graphql`, RFC 9457 problem+json everywhere else.
 */
export function sendError(req: Request, res: Response, error: ServiceError): void {
  const { status, headers } = errorHead(error);
  const { safe } = safeError(error);
  res.status(status).set(headers);
  if (req.originalUrl.startsWith('/graphql')) {
    res.type('application/json').send(JSON.stringify({ errors: [safe] }));
    return;
  }
  const { errors } = safe.extensions as { errors?: [] };
  res.type(PROBLEM_JSON).send(problemBody({ status, code: safe.extensions.code, detail: safe.message, errors }));
}
