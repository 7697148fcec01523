import { registerEnumType } from 'type-graphql';

/** Where a policy stands today (spec section 14). Values are the REST strings. */
export enum PolicyStatus {
  pending = 'pending',
  active = 'active',
  cancelled = 'cancelled',
  expired = 'expired',
}
registerEnumType(PolicyStatus, {
  name: 'PolicyStatus',
  description: 'pending (before effectiveDate), active, cancelled (a cancellation in effect) or expired (on or after expirationDate); today in UTC',
});

/** Today in UTC, as `YYYY-MM-DD`. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/**
 * The status from the dates, compared as `YYYY-MM-DD` text. A cancellation in effect wins over
 * expiry; nothing cancels yet (cancellation comes next), so there is none to consult.
 */
export function policyStatus(policy: { effectiveDate: string; expirationDate: string }, today: string = todayUtc()): PolicyStatus {
  if (today >= policy.expirationDate) return PolicyStatus.expired;
  if (today < policy.effectiveDate) return PolicyStatus.pending;
  return PolicyStatus.active;
}

/** Today in UTC in SQL: the same day `todayUtc` gives, from the database's clock. */
const TODAY_SQL = `(now() at time zone 'UTC')::date`;

/**
 * The status filter of the lists, over the row alias `p`: date ranges against today, the same
 * rule as `policyStatus`. `cancelled` matches nothing until cancellations exist.
 */
export const STATUS_PREDICATE: Readonly<Record<PolicyStatus, string>> = {
  pending: `p.effective_date > ${TODAY_SQL}`,
  active: `p.effective_date <= ${TODAY_SQL} and p.expiration_date > ${TODAY_SQL}`,
  expired: `p.expiration_date <= ${TODAY_SQL}`,
  cancelled: 'false',
};
