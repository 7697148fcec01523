import type { PolicyRules } from '../config.js';
import { todayUtc } from '../values/calendar-date.js';
import { decideCancellation } from './ledger/decide-cancellation.js';
import type { CancelPolicyInput } from './policy-lifecycle.input.js';
import { withLockedLedger, writeTransaction, type LedgerScope } from './policy-ledger.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * Cancels a policy (contract section 14, "Cancel"): one `cancellation` transaction owning a
 * credit per schedule period still running on `effectiveDate` (and the short-rate fee), with
 * the `policy.cancelled` event, under the policy's row lock so that of racing cancellations
 * exactly one is written. The rules: ledger/decide-cancellation.ts.
 */
export function cancelPolicy(scope: LedgerScope, rules: PolicyRules, number: number, input: CancelPolicyInput): Promise<PolicyRead> {
  const command = { effectiveDate: input.effectiveDate, reason: input.reason };
  return withLockedLedger(scope, number, (tx, ledger) => {
    const { kind, room, ...decided } = decideCancellation(ledger.state, command, { today: todayUtc(), rules });
    return writeTransaction(tx, scope, ledger, { type: kind, ...decided, room: { step: room, maxCharges: rules.maxCharges } });
  });
}
