import { quotaExceeded } from '../errors/errors.js';
import { withDatabaseRefusal } from './database-refusal.js';

/** SQLSTATE raised by the tree_usage triggers (migration caller_limits) over a quota. */
const QUOTA_SQLSTATE = 'QE001';

/**
 * Runs a create whose inserts the database counts per root organization tree (and a root's per
 * `sub`); an insert over a configured quota fails in the database (so instances cannot race past
 * it) and becomes 403 QUOTA_EXCEEDED here, with the whole create rolled back.
 */
export function withQuotas<T>(create: () => Promise<T>): Promise<T> {
  return withDatabaseRefusal(
    QUOTA_SQLSTATE,
    (message) => {
      const match = /(root organizations|organizations|policies|webhook endpoints) quota (\d+) exceeded/.exec(message);
      if (!match) return null;
      // Roots are counted per caller (migration roots_per_sub), the rest per tree.
      return match[1] === 'root organizations'
        ? quotaExceeded(match[1], Number(match[2]), 'This caller')
        : quotaExceeded(match[1], Number(match[2]));
    },
    create,
  );
}

/** PostgreSQL startup options that give the triggers the configured quotas (none: no quota). */
export function quotaSettings(quotas: {
  organizationsPerTree: number | null;
  policiesPerTree: number | null;
  webhookEndpointsPerTree?: number | null;
  rootsPerSub?: number | null;
}): string | undefined {
  const settings = [
    quotas.organizationsPerTree ? `-c org_policy.quota_organizations_per_tree=${quotas.organizationsPerTree}` : '',
    quotas.policiesPerTree ? `-c org_policy.quota_policies_per_tree=${quotas.policiesPerTree}` : '',
    quotas.webhookEndpointsPerTree ? `-c org_policy.quota_webhook_endpoints_per_tree=${quotas.webhookEndpointsPerTree}` : '',
    quotas.rootsPerSub ? `-c org_policy.quota_roots_per_sub=${quotas.rootsPerSub}` : '',
  ].filter(Boolean);
  return settings.length > 0 ? settings.join(' ') : undefined;
}
