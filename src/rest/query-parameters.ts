import { badUserInput, type FieldError } from '../errors/errors.js';
import { closestName } from '../values/edit-distance.js';
import { QUERY_LENGTH } from '../graphql/search-position.js';
import type { QueryParameter, RestRequest } from './route-entry.js';

export type { QueryParameter } from './route-entry.js';

/**
 * A query parameter a route takes, declared once in its route table entry: the route's OpenAPI
 * `parameters` are written from it (openapi.ts), and a request carrying any other parameter is
 * 400 before anything runs (contract section 18, "No silent typos anywhere": `?staus=` would
 * otherwise list every policy, unfiltered).
 */
/** A search's query (contract section 23): `q` on the policy and organization lists. */
export const SEARCH_PARAMETER: QueryParameter = {
  name: 'q',
  schema: { type: 'string', minLength: QUERY_LENGTH.min, maxLength: QUERY_LENGTH.max },
  description: `Search (${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters): typos are forgiven (trigram similarity)`,
};

/** Parameters that cannot be combined with the one given (`given` says which, and why): each a 400 naming it. */
export function refuseAlongside(query: RestRequest['query'], names: readonly string[], given: string): void {
  const alongside = names.filter((name) => query[name] !== undefined);
  if (alongside.length > 0) throw badUserInput(alongside.map((path) => ({ path, message: `cannot be combined with ${given}` })));
}

/** `organizationId` on a read: whose records it reads, as `description` says. */
export function organizationIdParameter(description: string): QueryParameter {
  return { name: 'organizationId', schema: { type: 'string', format: 'uuid' }, description };
}

/**
 * The request's query parameters that the route does not take, in the order sent, each with the
 * one it takes within two edits, as the closed bodies do for fields (rest-operation.ts). A
 * parameter given twice is one name here: `singleParameter` refuses the repetition itself.
 */
export function unknownParameterErrors(query: RestRequest['query'], declared: readonly QueryParameter[]): FieldError[] {
  const names = declared.map((parameter) => parameter.name);
  return Object.keys(query)
    .filter((name) => !names.includes(name))
    .map((path) => {
      const near = closestName(path, names);
      return { path, message: `is not a parameter of this request${near === null ? '' : `; did you mean "${near}"?`}` };
    });
}

/** Throws BAD_USER_INPUT listing every query parameter the route does not take. */
export function refuseUnknownParameters(query: RestRequest['query'], declared: readonly QueryParameter[]): void {
  const unknown = unknownParameterErrors(query, declared);
  if (unknown.length > 0) throw badUserInput(unknown);
}

/** A query parameter given at most once, as text (a repeated one is 400): the routes' and the audit export's. */
export function singleParameter(query: RestRequest['query'], name: string): string | undefined {
  const value = query[name];
  if (value === undefined || typeof value === 'string') return value;
  throw badUserInput([{ path: name, message: 'must be given once, as text' }]);
}

/** A comma-separated list parameter (`type=a,b`), given once; absent is null. */
export function listParameter(query: RestRequest['query'], name: string): string[] | null {
  const value = singleParameter(query, name);
  return value === undefined ? null : value.split(',');
}

/** `true` or `false`; absent is false. */
export function booleanParameter(query: RestRequest['query'], name: string): boolean {
  const value = singleParameter(query, name);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badUserInput([{ path: name, message: 'must be true or false' }]);
}
