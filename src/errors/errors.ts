import { GraphQLError } from 'graphql';

/**
 * The error codes of spec section 6 and the HTTP status each maps to. GraphQL puts the
 * code in `extensions.code`; REST answers with the status and the same code in problem+json.
 */
export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  QUOTA_EXCEEDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INVALID_STATE: 409,
  PRECONDITION_FAILED: 412,
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

/**
 * An expected failure: its message is safe to show, its code decides the HTTP status
 * (error-head.ts), and `headers` are the ones that go with it (a 401's challenge, a 429's
 * Retry-After).
 */
export class ServiceError extends GraphQLError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    extensions: Record<string, unknown> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message, { extensions: { code, ...extensions } });
  }
}

/** No principal, or a token that cannot be used: 401 with its RFC 6750 challenge. */
export function unauthenticated(message: string, challenge: string): ServiceError {
  return new ServiceError('UNAUTHENTICATED', message, {}, { 'www-authenticate': challenge });
}

/** A caller that is known but may not do this (an API key without the scope it needs). */
export function forbidden(message: string, extensions: Record<string, unknown> = {}): ServiceError {
  return new ServiceError('FORBIDDEN', message, extensions);
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
      ? `Invalid ${errors[0].path || 'body'}: ${errors[0].message}`
      : errors.length >= MAX_REPORTED_ERRORS
        ? `At least ${MAX_REPORTED_ERRORS} fields are invalid; the first ${MAX_REPORTED_ERRORS} are listed.`
        : `${errors.length} fields are invalid.`);
  return new ServiceError('BAD_USER_INPUT', summary, { errors });
}

export function conflict(message: string): ServiceError {
  return new ServiceError('CONFLICT', message);
}

/** A lifecycle step the policy or quote is not in a state for (contract section 14). */
export function invalidState(message: string): ServiceError {
  return new ServiceError('INVALID_STATE', message);
}

/** `If-Match` (REST) or `ifVersion` (GraphQL) names another version than the stored one (contract section 15). */
export function preconditionFailed(message: string): ServiceError {
  return new ServiceError('PRECONDITION_FAILED', message);
}

export function unavailable(message = 'The database is unavailable; retry shortly.'): ServiceError {
  return new ServiceError('UNAVAILABLE', message);
}

/** Over a rate limit (spec section 12): 429 with `Retry-After`. */
export function rateLimited(policy: string, retryAfterSeconds: number, limit: string): ServiceError {
  return new ServiceError(
    'RATE_LIMITED',
    `Rate limit "${policy}" exceeded (${limit}); retry after ${retryAfterSeconds} s.`,
    {},
    { 'retry-after': String(retryAfterSeconds) },
  );
}

/** A response over RESPONSE_MAX_BYTES is not sent: the request asks for too much at once. */
export function responseTooLarge(maxBytes: number): ServiceError {
  return badUserInput([], `The response would be larger than ${maxBytes} bytes; select fewer fields or smaller pages.`);
}

/** Over a quota: `holder` is what the quota is counted on (a tree, or the caller for its roots). */
export function quotaExceeded(what: string, quota: number, holder = 'This organization tree'): ServiceError {
  return new ServiceError('QUOTA_EXCEEDED', `${holder} already has its quota of ${quota} ${what}.`);
}
