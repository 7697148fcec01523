import { GraphQLError } from 'graphql';

/**
 * The error codes of contract section 6 and the HTTP status each maps to. GraphQL puts the
 * code in `extensions.code`; REST answers with the status and the same code in problem+json.
 */
export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
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

export function badUserInput(errors: FieldError[], message?: string): ServiceError {
  const summary =
    message ?? (errors.length === 1 ? `Invalid ${errors[0].path}: ${errors[0].message}` : `${errors.length} fields are invalid.`);
  return new ServiceError('BAD_USER_INPUT', summary, { errors });
}

export function conflict(message: string): ServiceError {
  return new ServiceError('CONFLICT', message);
}

export function unavailable(): ServiceError {
  return new ServiceError('UNAVAILABLE', 'The database is unavailable; retry shortly.');
}
