import { quotaExceeded } from '../errors/errors.js';
import { withDatabaseRefusal } from './database-refusal.js';

/** SQLSTATE raised by the tree_usage triggers (migration caller_limits) over a quota. */
const QUOTA_SQLSTATE = 'QE001';

/**
 * Runs a create whose inserts the database counts per root organization tree; an insert over a
 * configured quota fails in the database (so instances cannot race past it) and becomes 403
 * QUOTA_EXCEEDED here, with the whole create rolled back.
 */
export function withQuotas<T>(create: () => Promise<T>): Promise<T> {
  return withDatabaseRefusal(
    QUOTA_SQLSTATE,
    (message) => {
      const match = /(organizations|policies|webhook endpoints) quota (\d+) exceeded/.exec(message);
      return match ? quotaExceeded(match[1], Number(match[2])) : null;
    },
    create,
  );
}

/** PostgreSQL startup options that give the triggers the configured quotas (none: no quota). */
export function quotaSettings(quotas: {
  organizationsPerTree: number | null;
  policiesPerTree: number | null;
  webhookEndpointsPerTree?: number | null;
}): string | undefined {
  const settings = [
    quotas.organizationsPerTree ? `-c org_policy.quota_organizations_per_tree=${quotas.organizationsPerTree}` : '',
    quotas.policiesPerTree ? `-c org_policy.quota_policies_per_tree=${quotas.policiesPerTree}` : '',
    quotas.webhookEndpointsPerTree ? `-c org_policy.quota_webhook_endpoints_per_tree=${quotas.webhookEndpointsPerTree}` : '',
  ].filter(Boolean);
  return settings.length > 0 ? settings.join(' ') : undefined;
}
