import type { CallerLimits } from '../config.js';
import { badUserInput } from '../errors/errors.js';
import { withDatabaseRefusal } from './database-refusal.js';
import { quotaSettings } from './quotas.js';

/** SQLSTATE raised by the organization_depth_limit trigger (migration organization_depth). */
const TOO_DEEP_SQLSTATE = 'TD001';

/**
 * Runs an organization create; an insert below ORGANIZATION_MAX_DEPTH fails in the database
 * (no instance or direct caller can get past it, and the whole create rolls back) and becomes
 * 400 on `parentId` here, the field that chose the depth.
 */
export function withDepthLimit<T>(create: () => Promise<T>): Promise<T> {
  return withDatabaseRefusal(
    TOO_DEEP_SQLSTATE,
    (message) => {
      const match = /max depth (\d+) exceeded/.exec(message);
      return match
        ? badUserInput([
            { path: 'parentId', message: `is at the maximum depth of ${match[1]} levels; an organization cannot be created under it` },
          ])
        : null;
    },
    create,
  );
}

/** PostgreSQL startup options that give the triggers the tree limits: the quotas and the depth. */
export function treeLimitSettings(limits: Pick<CallerLimits, 'quotas' | 'organizationMaxDepth'>): string {
  return [quotaSettings(limits.quotas), `-c org_policy.organization_max_depth=${limits.organizationMaxDepth}`].filter(Boolean).join(' ');
}
