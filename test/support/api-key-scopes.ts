/**
 * The scopes of contract section 20, as the contract lists them: written here, not imported
 * from src/, so that the tests check the service against the contract's own words.
 */
export const CONTRACT_SCOPES = [
  'organizations:read',
  'organizations:write',
  'policies:read',
  'policies:write',
  'billing:write',
  'events:read',
  'webhooks:write',
  'audit:read',
] as const;
export type ContractScope = (typeof CONTRACT_SCOPES)[number];
