import { decideCancellation } from './ledger/decide-cancellation.js';
import { decideLapse } from './ledger/decide-lapse.js';
import { SERVICE_SUB } from '../auth/principal.js';
import type { LedgerScope } from './ledger/ledger-scope.js';
import { post } from './ledger/post.js';
import type { CancelPolicyInput } from './policy-lifecycle.input.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * Cancels a policy (contract section 14, "Cancel"): one `cancellation` transaction owning a
 * credit per schedule period still running on `effectiveDate` (and the short-rate fee), with
 * the `policy.cancelled` event, posted under the policy's row lock (ledger/post.ts) so that of
 * racing cancellations exactly one is written. The rules: ledger/decide-cancellation.ts.
 */
export function cancelPolicy(scope: LedgerScope, number: number, input: CancelPolicyInput): Promise<PolicyRead> {
  const command = { effectiveDate: input.effectiveDate, reason: input.reason };
  return post(scope, number, { command: () => command, decide: decideCancellation });
}

/**
 * Lapses a policy for non-payment (contract section 19, "Lapse"): the cancellation the billing
 * sweep records, posted like any other (one writer, the row lock), decided again under the lock
 * (ledger/decide-lapse.ts). `scope.principal` is the service's (auth/principal.ts). A policy that
 * has not lapsed, or no longer has (a payment came first, it is cancelled already, or this lapse
 * was written before and reinstated): 409.
 */
export function lapsePolicy(scope: LedgerScope, number: number): Promise<PolicyRead> {
  return post(scope, number, {
    // Under the lock: the lapses the service wrote before, so that one undone is not written again.
    command: async (tx, ledger) => ({
      lapsedBefore: (await tx.query<{ date: string }>(LAPSES_WRITTEN, [ledger.policy.id])).map((row) => row.date),
    }),
    decide: decideLapse,
  });
}

/** The dates of the service's non_payment cancellations of a policy (few: one per lapse). */
const LAPSES_WRITTEN = `select t.effective_date::text as date from policy_transaction t
  where t.policy_id = ? and t.type = 'cancellation' and t.created_by_sub = '${SERVICE_SUB}'
    and t.changes #>> '{cancellation,to,reason}' = 'non_payment'`;
