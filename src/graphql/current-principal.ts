import { createParameterDecorator } from 'type-graphql';
import type { Principal } from '../auth/principal.js';
import { callerOf, type RequestContext } from './context.js';

/**
 * The caller, for a resolver under `@Authorized()` (TypeGraphQL's `@CurrentUser()` pattern):
 * the auth checker has already raised the request's 401 when there is none.
 */
export function CurrentPrincipal() {
  return createParameterDecorator<RequestContext>(({ context }): Principal => callerOf(context));
}
