import type { OperationDefinitionNode } from 'graphql';
import { unauthenticated, type ServiceError } from '../errors/errors.js';
import type { Principal } from './principal.js';
import { TokenRejected, type TokenVerifier } from './token-verifier.js';

/** A caller with a principal, or none and the 401 to raise when one is needed (a union: never both, never neither). */
export type Authentication = { principal: Principal; failure: null } | { principal: null; failure: ServiceError };

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

/** The 401 for a token that cannot be used, with its description for `WWW-Authenticate`. */
export function refusedToken(description: string): Authentication {
  return refuse(description);
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
