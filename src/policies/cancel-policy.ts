import type { PolicyRules } from '../config.js';
import { badUserInput, invalidState } from '../errors/errors.js';
import { todayUtc } from '../values/calendar-date.js';
import { cancellationCharges, cancellationMethod, withinFreeLook } from './cancellation-charges.js';
import type { CancelPolicyInput } from './policy-lifecycle.input.js';
import {
  assertTransactionDate,
  schedulePeriods,
  withLockedLedger,
  writeTransaction,
  type LedgerScope,
  type PolicyLedger,
} from './policy-ledger.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * Cancels a policy (contract section 14, "Cancel"): one `cancellation` transaction owning a
 * credit per schedule period still running on `effectiveDate` (and the short-rate fee), with
 * the `policy.cancelled` event, under the policy's row lock so that of racing cancellations
 * exactly one is written.
 */
export function cancelPolicy(scope: LedgerScope, rules: PolicyRules, number: number, input: CancelPolicyInput): Promise<PolicyRead> {
  const { reason } = input;
  const method = cancellationMethod(reason);
  return withLockedLedger(scope, number, (tx, ledger) => {
    const { policy } = ledger;
    if (method === 'flat' && !withinFreeLook(policy.effectiveDate, input.effectiveDate, rules.freeLookDays)) {
      throw badUserInput([
        {
          path: 'reason',
          message: `free_look is only allowed up to ${rules.freeLookDays} days after the policy's effectiveDate (${policy.effectiveDate})`,
        },
      ]);
    }
    assertCancellable(ledger);
    assertTransactionDate(ledger, input.effectiveDate);
    const money = cancellationCharges({
      schedule: schedulePeriods(ledger),
      ledger: ledger.charges,
      effectiveDate: input.effectiveDate,
      expirationDate: policy.expirationDate,
      method,
      shortRatePercent: rules.shortRatePercent,
    });
    return writeTransaction(tx, scope, ledger, {
      type: 'cancellation',
      effectiveDate: input.effectiveDate,
      // The field a cancellation changes is the policy's cancellation: none before, this one after.
      changes: { cancellation: { from: null, to: { effectiveDate: input.effectiveDate, reason, method } } },
      charges: money.lines,
      event: 'policy.cancelled',
      room: { step: { type: 'cancellation' }, maxCharges: rules.maxCharges },
      // As reads show it (stored with its state: LATEST_STATE): what its own charges credited and charged.
      cancellation: {
        effectiveDate: input.effectiveDate,
        reason,
        method,
        credited: money.credited,
        fee: money.fee,
        createdAt: ledger.transactionTime,
      },
    });
  });
}

/** Not when cancelled or with a cancellation scheduled, nor once expired. */
function assertCancellable({ policy, cancellation }: PolicyLedger): void {
  if (cancellation) {
    throw invalidState(`Policy ${policy.number} already has a cancellation effective ${cancellation.effectiveDate}; reinstate it first.`);
  }
  if (todayUtc() >= policy.expirationDate) throw invalidState(`Policy ${policy.number} expired on ${policy.expirationDate}.`);
}
