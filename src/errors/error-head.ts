import Negotiator from 'negotiator';
import type { GraphQLError } from 'graphql';
import { RETRY_AFTER_SECONDS, ServiceError } from './errors.js';
import { statusOf } from './safe-errors.js';

/** An error as HTTP: its status and the headers that go with it. */
export interface ErrorHead {
  status: number;
  headers: Record<string, string>;
}

/** The headers an error carries (a 401's challenge, a 429's Retry-After), also wrapped by graphql-js in a resolver's error. */
export function carriedHeaders(error: GraphQLError): Readonly<Record<string, string>> {
  const carried = error instanceof ServiceError ? error : error.originalError instanceof ServiceError ? error.originalError : null;
  return carried?.headers ?? {};
}

/**
 * One error's HTTP head, from its (client-safe) code: the status of spec section 6, the headers
 * it carries, and `Retry-After` on every 503. answer.ts composes a whole answer from it.
 */
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
