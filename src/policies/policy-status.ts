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
 * The policy's latest cancellation or reinstatement when it is a cancellation (one in force,
 * possibly in the future), over the row alias `p`: `t` has its `id`, `effective_date`,
 * `created_at` and `changes`. Found from the end of the policy's transactions by the
 * (policy_id, seq) index.
 */
export const CURRENT_CANCELLATION = `(select t.* from policy_transaction t
    where t.policy_id = p.id and t.type in ('cancellation', 'reinstatement') order by t.seq desc limit 1) t
  where t.type = 'cancellation'`;

const CANCELLED = `exists (select 1 from ${CURRENT_CANCELLATION} and t.effective_date <= ${TODAY_SQL})`;

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
