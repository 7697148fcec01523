/**
 * What an API key may do (contract section 20): a non-empty subset of these, chosen when it is
 * made. A token (JWT) principal has no scopes: it may do whatever the access rule lets it.
 */
export const API_KEY_SCOPES = [
  'organizations:read',
  'organizations:write',
  'policies:read',
  'policies:write',
  'billing:write',
  'events:read',
  'webhooks:write',
  'audit:read',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
