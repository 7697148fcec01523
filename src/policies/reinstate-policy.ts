import type { PolicyRules } from '../config.js';
import { todayUtc } from '../values/calendar-date.js';
import { decideReinstatement } from './ledger/decide-reinstatement.js';
import { withLockedLedger, writeTransaction, type LedgerScope } from './policy-ledger.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * Reinstates a policy (contract section 14, "Reinstate"): a `reinstatement` transaction with a
 * reversal of each charge of the cancellation in force, and the `policy.reinstated` event, under
 * the policy's row lock. The rules: ledger/decide-reinstatement.ts.
 */
export function reinstatePolicy(scope: LedgerScope, rules: PolicyRules, number: number): Promise<PolicyRead> {
  return withLockedLedger(scope, number, (tx, ledger) => {
    const { kind, room, ...decided } = decideReinstatement(ledger.state, {}, { today: todayUtc(), rules });
    return writeTransaction(tx, scope, ledger, { type: kind, ...decided, room: { step: room, maxCharges: rules.maxCharges } });
  });
}
