import type { OperationDefinitionNode } from 'graphql';
import { unauthenticated, type ServiceError } from '../errors/errors.js';
import type { Principal } from './principal.js';
import { TokenRejected, type TokenVerifier } from './token-verifier.js';

/** A caller with a principal, or none and the 401 to raise when one is needed (a union: never both, never neither). */
export type Authentication = { principal: Principal; failure: null } | { principal: null; failure: ServiceError };

/**
 * Who a request is from, decided once per request by the gate (http/authentication-gate.ts): a
 * principal, or the 401 to answer when the request needs one and has none (never both, never neither).
 */
export type RequestAuthentication = Authentication & {
  /** Whether an Authorization header was sent at all (a refused one is always a 401). */
  tokenSent: boolean;
};

/** A request's Authorization headers, as Node gives them: every raw header line, and the one it kept. */
export interface AuthorizationHeaders {
  /** Names and values, alternating (`rawHeaders`). */
  raw: readonly string[];
  /** Node's `headers.authorization`: the first of them. */
  authorization: string | undefined;
}

/**
 * A request's authentication from its headers, without a framework: the gate asks this once per
 * request, before any body is read. Node keeps the first of two Authorization headers and drops
 * the other; a proxy in front may pick the last. Two headers are refused, so both always agree
 * on who is asking.
 */
export function authenticateRequest({ raw, authorization }: AuthorizationHeaders, verify: TokenVerifier): Promise<RequestAuthentication> {
  let seen = 0;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index].length === 13 && raw[index].toLowerCase() === 'authorization') seen++;
  }
  const result = seen > 1 ? Promise.resolve(refuse('send a single Authorization header')) : authenticate(authorization, verify);
  const tokenSent = seen > 1 || authorization !== undefined;
  return result.then((authentication) => ({ ...authentication, tokenSent }));
}

const REALM = 'org-policy-service';

/** RFC 6750 section 2.1: `Bearer` then a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Reads `Authorization: Bearer <JWT>`. Never throws: a missing or refused token becomes the
 * 401 error to raise when the request needs a principal, with its RFC 6750 challenge.
 */
export async function authenticate(header: string | undefined, verify: TokenVerifier): Promise<Authentication> {
  if (!header) return refuse(null);
  // The developer pages preload this placeholder (spec section 9): say what to do with it.
  if (header.includes('<token>'))
    return refuse('the Authorization header still holds the placeholder <token>: replace <token> with a token (npm run -s token)');
  const match = BEARER.exec(header);
  if (!match) return refuse('the Authorization header must be "Bearer <token>"');
  try {
    return { principal: await verify(match[1]), failure: null };
  } catch (error) {
    if (error instanceof TokenRejected) return refuse(error.description);
    throw error;
  }
}

/** The 401 error: `description` is null when no token was sent at all. */
function refuse(description: string | null): Authentication {
  const challenge = description
    ? `Bearer realm="${REALM}", error="invalid_token", error_description="${description.replace(/"/g, "'")}"`
    : `Bearer realm="${REALM}"`;
  const message = description ? `Invalid token: ${description}.` : 'Authentication required: send "Authorization: Bearer <token>".';
  return { principal: null, failure: unauthenticated(message, challenge) };
}

/**
 * The one rule for "does this request need a principal": every operation does, except an
 * introspection-only query while the developer pages are on (so Sandbox and GraphiQL can load the schema).
 */
export function needsPrincipal(operation: OperationDefinitionNode, anonymousIntrospection: boolean): boolean {
  if (!anonymousIntrospection || operation.operation !== 'query') return true;
  return !operation.selectionSet.selections.every((selection) => selection.kind === 'Field' && selection.name.value.startsWith('__'));
}

/** Where a request is asked whether it may go on without a principal. */
export type AuthenticationPoint =
  | { surface: 'rest' }
  | { surface: 'graphql'; anonymousIntrospection: boolean }
  | { surface: 'graphql'; anonymousIntrospection: boolean; operation: OperationDefinitionNode };

/**
 * The one rule for refusing a request for want of a principal (its 401), asked by each surface
 * as soon as it can: REST before the body (every route needs a principal); `/graphql` before
 * the body for a token that was sent and refused, or for none with the developer pages off; `/graphql` again
 * once the operation is known (every operation needs one but an introspection-only query
 * while the developer pages are on, so Sandbox and GraphiQL can load the schema).
 */
export function authenticationRefusal(
  authentication: Authentication & { tokenSent?: boolean },
  point: AuthenticationPoint,
): ServiceError | null {
  if (authentication.principal) return null;
  const { failure, tokenSent } = authentication;
  if (point.surface === 'rest') return failure;
  if ('operation' in point) return needsPrincipal(point.operation, point.anonymousIntrospection) ? failure : null;
  return tokenSent || !point.anonymousIntrospection ? failure : null;
}
