import type { Gateway } from '../database/database.js';
import { recordEvent } from '../outbox/record-event.js';
import { readLockedLedger } from './ledger/ledger-read.js';
import type { LedgerScope } from './ledger/ledger-scope.js';
import { policyBilling } from './policy-billing.js';
import { policyEventObject } from './policy-event.js';

/**
 * `policy.past_due` (contract section 19): recorded once each time a policy's `pastDue` turns from
 * 0 to more than 0, as the billing sweep sees it. `policy_billing_notice` holds, per policy,
 * whether the sweep last saw it past due (Migration20261203000000_billing): the event is recorded
 * when the notice turns true, in the same transaction; the notice turns false, without an event,
 * when the sweep sees the policy paid up. Not a transaction of the ledger: no version, no state
 * row; the event's `object` is the policy as the REST read answers it then.
 */

/**
 * The notice turned true, unless it already was: the row it returns is the guard. Two sweeps at
 * once (the queue runs one; this holds without it) wait on the policy's lock and then on the
 * notice's row, and the second finds it true and records nothing.
 */
const NOTICE_PAST_DUE = `insert into policy_billing_notice (policy_id, past_due) values (?, true)
  on conflict (policy_id) do update set past_due = true, changed_at = now() where not policy_billing_notice.past_due
  returning 1`;

const NOTICE_PAID_UP = `update policy_billing_notice set past_due = false, changed_at = now() where policy_id = ? and past_due`;

/**
 * Records `policy.past_due` for policy `number` if it is past due now and its notice did not say
 * so, with the notice, in one transaction under the policy's row lock (so judged on what its last
 * payment left, as a refund is). `scope.principal` is the service's (auth/principal.ts): the
 * event's actor is `system`. Returns whether it was recorded.
 */
export async function recordPastDue(scope: Pick<LedgerScope, 'db' | 'principal' | 'rules'>, number: number): Promise<boolean> {
  return scope.db.transaction(async (tx) => {
    const { policy } = await readLockedLedger(tx, scope.principal, number);
    const graceDays = scope.rules.billingGraceDays;
    if (policyBilling(policy, graceDays).pastDue === 0) return false;
    const turned = await tx.query(NOTICE_PAST_DUE, [policy.id]);
    if (turned.length === 0) return false;
    await recordEvent(tx, {
      type: 'policy.past_due',
      organizationId: policy.organizationId,
      actorSub: scope.principal.sub,
      object: policyEventObject(policy, graceDays),
    });
    return true;
  });
}

/** The notice of policy `policyId` back to "not past due" (no event): the next time it falls behind is recorded. */
export async function clearPastDue(db: Gateway, policyId: string): Promise<void> {
  await db.query(NOTICE_PAID_UP, [policyId]);
}

/** Policies past due as the last sweep saw them (the `policies_past_due` gauge): one count of the partial index policy_billing_notice_past_due_index. */
export async function countPastDue(db: Gateway): Promise<number> {
  const [{ count }] = await db.query<{ count: number }>('select count(*)::int as count from policy_billing_notice where past_due');
  return count;
}
