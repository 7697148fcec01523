import type { ApiKeyScope } from './scopes.js';

/**
 * Who is asking, from a verified token or API key: the user (`sub`) and the organization they
 * act for. A key acts as a token whose `sub` is `apikey:<id>` and whose `org` is the key's
 * organization, within its scopes (contract section 20).
 */
export interface Principal {
  sub: string;
  /** The `org` claim: a UUID, or null when the token carries none. */
  org: string | null;
  /** Set when the caller is an API key: its id (the `sub` is `apikey:<id>`). */
  apiKeyId?: string;
  /** An API key's scopes; absent for a token, which is limited by the access rule alone. */
  scopes?: readonly ApiKeyScope[];
}

/**
 * The `sub` of what the service records on its own (contract section 19, "Lapse"): the
 * transaction's `createdBy` and the event's `actor.sub`.
 */
export const SERVICE_SUB = 'system';

/**
 * The service acting on a resource of organization `organizationId` (the billing sweep, on one
 * policy at a time): an `org` claim reaches its own organization and everything beneath it
 * (auth/access-rule.ts), so every write goes through the access rule as a caller's does, and
 * the principal reaches that organization's resources only, not the rest of the tree above it.
 */
export function servicePrincipal(organizationId: string): Principal {
  return { sub: SERVICE_SUB, org: organizationId };
}
