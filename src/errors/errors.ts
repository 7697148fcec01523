import { HeaderMap } from '@apollo/server';
import { GraphQLError } from 'graphql';

/**
 * The error codes of spec section 6 and the HTTP status each maps to. GraphQL puts the
 * code in `extensions.code`; REST answers with the status and the same code in problem+json.
 */
export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  QUOTA_EXCEEDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Seconds a client should wait before retrying when the database is away (503). */
export const RETRY_AFTER_SECONDS = '5';

/** One broken rule: `path` in the request body's terms, e.g. `owners[1].ownership`. */
export interface FieldError {
  path: string;
  message: string;
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);
}

/** An expected failure: its message is safe to show and its code decides the HTTP status. */
export class ServiceError extends GraphQLError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    extensions: Record<string, unknown> = {},
  ) {
    super(message, { extensions: { code, ...extensions } });
  }
}

export function notFound(message = 'Not found.'): ServiceError {
  return new ServiceError('NOT_FOUND', message);
}

/** At most this many field errors are reported for one request (spec section 12). */
export const MAX_REPORTED_ERRORS = 100;

export function badUserInput(errors: FieldError[], message?: string): ServiceError {
  const summary =
    message ??
    (errors.length === 1
      ? `Invalid ${errors[0].path}: ${errors[0].message}`
      : errors.length >= MAX_REPORTED_ERRORS
        ? `At least ${MAX_REPORTED_ERRORS} fields are invalid; the first ${MAX_REPORTED_ERRORS} are listed.`
        : `${errors.length} fields are invalid.`);
  return new ServiceError('BAD_USER_INPUT', summary, { errors });
}

export function conflict(message: string): ServiceError {
  return new ServiceError('CONFLICT', message);
}

export function unavailable(message = 'The database is unavailable; retry shortly.'): ServiceError {
  return new ServiceError('UNAVAILABLE', message);
}

/**
 * Over a rate limit (spec section 12): 429 with `Retry-After`. `extensions.http` carries the
 * status and header to Apollo (which strips it from the body) and to REST (http-errors.ts).
 */
export function rateLimited(policy: string, retryAfterSeconds: number, limit: string): ServiceError {
  return new ServiceError('RATE_LIMITED', `Rate limit "${policy}" exceeded (${limit}); retry after ${retryAfterSeconds} s.`, {
    http: { status: 429, headers: new HeaderMap([['retry-after', String(retryAfterSeconds)]]) },
  });
}

/** A response over RESPONSE_MAX_BYTES is not sent: the request asks for too much at once. */
export function responseTooLarge(maxBytes: number): ServiceError {
  return badUserInput([], `The response would be larger than ${maxBytes} bytes; select fewer fields or smaller pages.`);
}

export function quotaExceeded(what: string, quota: number): ServiceError {
  return new ServiceError('QUOTA_EXCEEDED', `This organization tree already has its quota of ${quota} ${what}.`);
}
