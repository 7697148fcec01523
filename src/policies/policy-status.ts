import { registerEnumType } from 'type-graphql';
import { todayUtc } from '../values/calendar-date.js';

/** Where a policy stands today (spec section 14). Values are the REST strings. */
export enum PolicyStatus {
  pending = 'pending',
  active = 'active',
  cancelled = 'cancelled',
  expired = 'expired',
}
registerEnumType(PolicyStatus, {
  name: 'PolicyStatus',
  description:
    'pending (before effectiveDate), active, cancelled (a cancellation in effect) or expired (on or after expirationDate); today in UTC',
});

/**
 * The status from the dates, compared as `YYYY-MM-DD` text. A cancellation in effect (today on
 * or after its date) wins over expiry; one that lies in the future changes nothing yet.
 */
export function policyStatus(
  policy: { effectiveDate: string; expirationDate: string; cancellation?: { effectiveDate: string } | null },
  today: string = todayUtc(),
): PolicyStatus {
  if (policy.cancellation && today >= policy.cancellation.effectiveDate) return PolicyStatus.cancelled;
  if (today >= policy.expirationDate) return PolicyStatus.expired;
  if (today < policy.effectiveDate) return PolicyStatus.pending;
  return PolicyStatus.active;
}

/** Today in UTC in SQL: the same day `todayUtc` gives, from the database's clock. */
export const TODAY_SQL = `(now() at time zone 'UTC')::date`;

/**
 * A cancellation in effect today, over the row alias `p`: the latest stored state's
 * `cancelled_from` (policy_state; null without a cancellation in force) on or before today.
 */
const CANCELLED = `coalesce((select s.cancelled_from from policy_state s where s.policy_id = p.id order by s.version desc limit 1) <= ${TODAY_SQL}, false)`;

/**
 * The status filter of the lists, over the row alias `p`: the same rule as `policyStatus`. A
 * pending policy cannot be cancelled yet (a cancellation takes effect in the term).
 */
export const STATUS_PREDICATE: Readonly<Record<PolicyStatus, string>> = {
  pending: `p.effective_date > ${TODAY_SQL}`,
  active: `p.effective_date <= ${TODAY_SQL} and p.expiration_date > ${TODAY_SQL} and not ${CANCELLED}`,
  expired: `p.expiration_date <= ${TODAY_SQL} and not ${CANCELLED}`,
  cancelled: CANCELLED,
};
