import type { PolicyRules } from '../config.js';
import { invalidState } from '../errors/errors.js';
import { todayUtc } from '../values/calendar-date.js';
import { canReinstate, reversalLines } from './cancellation-charges.js';
import { withLockedLedger, writeTransaction, type LedgerScope } from './policy-ledger.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * Reinstates a policy (contract section 14, "Reinstate"): a `reinstatement` transaction with a
 * reversal of each charge of the cancellation in force, so the charges sum to what they did
 * before it, and the `policy.reinstated` event. Only while the cancellation lies in the future
 * or took effect at most POLICY_REINSTATEMENT_DAYS ago, and not for fraud.
 */
export function reinstatePolicy(scope: LedgerScope, rules: PolicyRules, number: number): Promise<PolicyRead> {
  return withLockedLedger(scope, number, (tx, ledger) => {
    const { policy, cancellation, charges } = ledger;
    if (!cancellation) throw invalidState(`Policy ${policy.number} has no cancellation to undo.`);
    const { reason } = cancellation.changes.cancellation.to as { reason: string };
    if (!canReinstate({ effectiveDate: cancellation.effectiveDate, reason }, todayUtc(), rules.reinstatementDays)) {
      throw invalidState(
        reason === 'fraud'
          ? `Policy ${policy.number} was cancelled for fraud: it cannot be reinstated.`
          : `Policy ${policy.number}'s cancellation took effect on ${cancellation.effectiveDate}, more than ${rules.reinstatementDays} days ago.`,
      );
    }
    return writeTransaction(tx, scope, ledger, {
      type: 'reinstatement',
      // It undoes the cancellation from the day that took effect (never before the latest transaction).
      effectiveDate: cancellation.effectiveDate,
      changes: { cancellation: { from: cancellation.changes.cancellation.to, to: null } },
      charges: reversalLines(charges.filter((charge) => charge.transactionId === cancellation.id)),
      event: 'policy.reinstated',
      room: { step: { type: 'reinstatement' }, maxCharges: rules.maxCharges },
      cancellation: null,
    });
  });
}
