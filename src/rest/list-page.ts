import { badUserInput } from '../errors/errors.js';
import { MAX_PAGE_SIZE } from '../graphql/connection.js';
import { singleParameter, type QueryParameter } from './query-parameters.js';
import type { RestRequest } from './route-entry.js';

/**
 * A REST list (spec section 10): `limit` and `after` in, `{ data, hasMore, nextCursor }` out.
 * A route that takes the page parameters is a list: its OpenAPI errors are a list's (openapi.ts).
 */
export const PAGE_PARAMETERS: readonly QueryParameter[] = [
  { name: 'limit', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 } },
  { name: 'after', schema: { type: 'string' }, description: 'The `nextCursor` of the previous page' },
];

/** A list's page: `limit` as `first`, the cursor `after` as is (checked by the connection). */
export function pageVariables(query: RestRequest['query']): { first: number; after: string | null } {
  return { first: pageLimit(query), after: singleParameter(query, 'after') ?? null };
}

/** `limit`: 1 to MAX_PAGE_SIZE, default 20 (spec section 10). */
function pageLimit(query: RestRequest['query']): number {
  const limit = singleParameter(query, 'limit');
  if (limit === undefined) return 20;
  if (!/^[1-9][0-9]{0,2}$/.test(limit) || Number(limit) > MAX_PAGE_SIZE) {
    throw badUserInput([{ path: 'limit', message: `must be a whole number from 1 to ${MAX_PAGE_SIZE}` }]);
  }
  return Number(limit);
}

/** A connection as a REST list: `{ data, hasMore, nextCursor }`. */
export function listBody<T>(connection: { edges: Array<{ node: T }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } }) {
  return {
    data: connection.edges.map((edge) => edge.node),
    hasMore: connection.pageInfo.hasNextPage,
    nextCursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
  };
}
