import type { WebhookSettings } from '../config.js';

/**
 * How delivery shares its slots between tenants (contract section 12, "Webhooks are fair between
 * tenants"; docs/decisions.md, "Delivery fair between tenants"). A tenant is the `sub` that
 * created a root organization, with every tree it created: each job is in the pg-boss group of
 * its endpoint's tenant, and two kinds of fetch share an instance's slots.
 * - A *general* fetch takes the oldest due job of any tenant with fewer than
 *   WEBHOOK_IN_FLIGHT_PER_TENANT attempts in flight (pg-boss counts a group's active jobs in its
 *   job table, so the cap holds across instances).
 * - The *reserve*: a quarter of the slots (at least one) never take a job of a tenant with an
 *   attempt in flight (`groupConcurrency: 1`). Capped tenants together can fill the general
 *   slots, never these: a tenant whose deliveries are not already being attempted always finds a
 *   slot within one poll.
 * The split is counted per instance, so N instances keep N reserves.
 */

/**
 * The tenant of an endpoint's organization `o`, in SQL: its root's `owner_sub`. `owner_subs`
 * starts with the root's owner (organization_set_ancestry() builds it from the parent's), and
 * no organization's owner or parent ever changes, so a tree never changes tenant.
 */
export const TENANT_OF_ORGANIZATION = 'o.owner_subs[1]';

/** The pg-boss send option that puts a job in its tenant's group (none without fairness). */
export function tenantGroup(tenant: string, fairness: boolean): { group?: { id: string } } {
  return fairness ? { group: { id: tenant } } : {};
}

/** A fetch a slot may make now, and what to call when the job it got (or none) is done. */
export interface SlotClaim {
  fetchOptions: { batchSize: 1; groupConcurrency?: number };
  release(): void;
}

/** The general and reserved slots of one instance; `claim` is called by a slot before each fetch. */
export function slotShares(settings: Pick<WebhookSettings, 'concurrency' | 'inFlightPerTenant'>, fairness: boolean) {
  const reserved = Math.max(1, Math.ceil(settings.concurrency / 4));
  const general = settings.concurrency - reserved;
  // Taken before the fetch (a slot's await would otherwise let two slots take the last one).
  let generalInUse = 0;
  return {
    reserved,
    general,
    claim(): SlotClaim {
      if (!fairness) return { fetchOptions: { batchSize: 1 }, release: () => undefined };
      if (generalInUse < general) {
        generalInUse++;
        let released = false;
        return {
          fetchOptions: { batchSize: 1, groupConcurrency: settings.inFlightPerTenant },
          release: () => {
            if (!released) generalInUse--;
            released = true;
          },
        };
      }
      return { fetchOptions: { batchSize: 1, groupConcurrency: 1 }, release: () => undefined };
    },
  };
}

/**
 * A success slower than this backs its endpoint off as a failure does: a receiver that answers
 * just inside the time limit would otherwise hold its tenant's share with every event, and never
 * be slowed. Fixed, not a share of WEBHOOK_TIMEOUT_SECONDS: the time is measured by this process,
 * with its own delays in it, and a threshold that shrank with a short timeout turned a busy
 * service's lag into back-off (a 1 s timeout's 0.5 s was reached under load with a receiver that
 * answered in 50 ms). With a timeout of 5 s or less no success is slow.
 */
export const SLOW_SUCCESS_MS = 5_000;

export function isSlowSuccess(elapsedMs: number): boolean {
  return elapsedMs > SLOW_SUCCESS_MS;
}
