import { LSN_PATTERN } from '../database/replicas.js';
import type { ResponseDoc } from './route-entry.js';

/**
 * The building blocks of the OpenAPI document that many routes share: references, headers,
 * problem responses, the errors every route of a kind answers, and the header parameters.
 * openapi.ts puts them together with each route's own entry (routes/*.ts).
 */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: object) => ({ 'application/json': { schema } });

/** On every answer: the request's id (the one sent, or a new one), to quote to support. */
export const requestIdHeader = {
  'X-Request-Id': { description: 'The request id: the one the client sent, or a new UUID', schema: { type: 'string' } },
};
export const problem = (description: string, headers?: object): ResponseDoc => ({
  description,
  headers: { ...requestIdHeader, ...headers },
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } } };
export const rateLimitHeaders = {
  RateLimit: { description: 'IETF draft 11: what is left of each policy, e.g. `"requests";r=5999;t=42`', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF draft 11: the policies counted, e.g. `"requests";q=6000;w=60`', schema: { type: 'string' } },
};
/** On a read or a change of an organization (contract section 15) or a policy (section 14, "Versions and ordering"). */
export const etagHeader = {
  ETag: {
    description:
      'The record’s version, quoted (`"3"`). An organization’s: send it back as If-Match to change exactly that version. ' +
      'A policy’s: 1 at issue, +1 for each transaction',
    schema: { type: 'string' },
  },
};
export const replayedHeader = {
  'Idempotent-Replayed': { description: '`true` when this is a kept response replayed for an Idempotency-Key', schema: { type: 'string' } },
};

/** What every route answers. */
export const ERRORS: Readonly<Record<number, ResponseDoc>> = {
  401: problem('No token, or a refused token', {
    'WWW-Authenticate': { description: 'RFC 6750 challenge', schema: { type: 'string' } },
  }),
  429: problem('Over a per-caller rate limit (code RATE_LIMITED): requests a minute, creates a minute, or requests in flight', {
    ...retryAfter,
    ...rateLimitHeaders,
  }),
  500: problem('Unexpected failure; the body carries only a request id'),
  503: problem('The database is unreachable, or the request did not finish within its deadline', retryAfter),
};
/** What every create and change (a POST or PATCH with a body) answers. */
export const POST_ERRORS: Readonly<Record<number, ResponseDoc>> = {
  ...ERRORS,
  400: problem('The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`)'),
  413: problem('The body is larger than 100 KB'),
  415: problem('The body is not application/json, or not UTF-8'),
  422: problem('The Idempotency-Key was already used with a different body (code IDEMPOTENCY_KEY_REUSED)'),
};
/**
 * What every read answers: a read with no 400 of its own still answers one for a Consistency-Token
 * no write gave (contract section 17).
 */
export const GET_ERRORS: Readonly<Record<number, ResponseDoc>> = {
  ...ERRORS,
  400: problem(
    'The `Consistency-Token` header is not one a write answered: not a WAL position, or ahead of the primary’s (code BAD_USER_INPUT)',
  ),
};
/** What every list answers (spec section 10). */
export const LIST_ERRORS: Readonly<Record<number, ResponseDoc>> = {
  ...ERRORS,
  400: problem(
    'A query parameter is invalid: `limit` not 1–100, `after` not a cursor of this list, a parameter given twice, or (policies) `includeDescendants` not true/false, or no `organizationId` and no org claim',
  ),
};
/** Said of every route's 400 (contract section 18, "No silent typos anywhere"). */
export const UNKNOWN_PARAMETER =
  'a query parameter the route does not take is listed as `is not a parameter of this request`, with `; did you mean "<parameter>"?` when one it takes is within two edits';

/** A record's uuid in the path. */
export const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/** POSTs accept an Idempotency-Key (spec section 7). */
export const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description:
    'Makes retries safe: the first response (unless a 5xx) is kept for 24 hours and replayed to a repeat with the same ' +
    'body (with `Idempotent-Replayed: true`); another body gets 422, a repeat while the first runs gets 409.',
};
export const ifMatch = {
  name: 'If-Match',
  in: 'header',
  required: false,
  schema: { type: 'string', examples: ['"3"'] },
  description:
    'The ETag of the read the change was made against. Another version, a weak tag or anything malformed: 412 PRECONDITION_FAILED, nothing written. ' +
    'Without it the last write wins; `*` matches any version.',
};

const consistencyTokenSchema = { type: 'string', pattern: LSN_PATTERN };
/** Contract section 17: a write's success answers it. */
export const consistencyTokenHeader = {
  'Consistency-Token': {
    description:
      'The primary’s WAL position after this write (e.g. `0/16B3748`). Send it back on a read as the `Consistency-Token` header: the read then sees this write, from a read replica that has replayed it or else from the primary.',
    schema: consistencyTokenSchema,
  },
};
/** Contract section 17: a read takes one, and sees at least that write. */
export const consistencyTokenParameter = {
  name: 'Consistency-Token',
  in: 'header',
  required: false,
  schema: consistencyTokenSchema,
  description:
    'The Consistency-Token of a write this read must see (read replicas, contract section 17); anything else, or a position ahead of the primary’s, is 400. Without it, a caller’s reads within DATABASE_REPLICA_STICKY_SECONDS of its own write on the instance see it too.',
};

/** A REST list page (spec section 10): `{ data, hasMore, nextCursor }`. */
export function listSchema(item: string) {
  return {
    type: 'object',
    required: ['data', 'hasMore', 'nextCursor'],
    properties: {
      data: { type: 'array', items: ref(item) },
      hasMore: { type: 'boolean' },
      nextCursor: {
        type: ['string', 'null'],
        description:
          'Pass as `after` for the next page; null on the last. A status-filtered page may be short, even empty, and still have one',
      },
    },
    additionalProperties: false,
  };
}
