import { badUserInput, invalidState } from '../../errors/errors.js';
import { cancellationCharges, cancellationMethod, withinFreeLook, type CancellationReason } from './cancellation-charges.js';
import { assertNotExpired, assertTransactionDate, type DecideContext, type Decision } from './decision.js';
import type { PolicyState } from './state.js';

export interface CancelCommand {
  effectiveDate: string;
  reason: CancellationReason;
}

/**
 * A cancellation (contract section 14, "Cancel"): a credit per schedule period still running on
 * `effectiveDate` (and the short-rate fee). The order of refusals: 400 on a free_look past
 * POLICY_FREE_LOOK_DAYS; then 409 on its state (a cancellation in force or scheduled, expired)
 * and on the date.
 */
export function decideCancellation(state: PolicyState, command: CancelCommand, { today, rules }: DecideContext): Decision {
  const { policy } = state;
  const { effectiveDate, reason } = command;
  const method = cancellationMethod(reason);
  if (method === 'flat' && !withinFreeLook(policy.effectiveDate, effectiveDate, rules.freeLookDays)) {
    throw badUserInput([
      {
        path: 'reason',
        message: `free_look is only allowed up to ${rules.freeLookDays} days after the policy's effectiveDate (${policy.effectiveDate})`,
      },
    ]);
  }
  if (state.cancellation) {
    throw invalidState(
      `Policy ${policy.number} already has a cancellation effective ${state.cancellation.effectiveDate}; reinstate it first.`,
    );
  }
  assertNotExpired(state, today);
  assertTransactionDate(state, effectiveDate);
  return cancellationOf(state, command, rules.shortRatePercent);
}

/**
 * The cancellation's transaction once its rules are met: its credits (and fee), its changes and
 * event. decideCancellation checks a caller's cancellation first; decide-lapse.ts the service's.
 */
export function cancellationOf(state: PolicyState, { effectiveDate, reason }: CancelCommand, shortRatePercent: number): Decision {
  const { policy } = state;
  const method = cancellationMethod(reason);
  const money = cancellationCharges({
    schedule: state.schedule,
    ledger: state.charges,
    effectiveDate,
    expirationDate: policy.expirationDate,
    method,
    shortRatePercent,
  });
  return {
    kind: 'cancellation',
    effectiveDate,
    // The field a cancellation changes is the policy's cancellation: none before, this one after.
    changes: { cancellation: { from: null, to: { effectiveDate, reason, method } } },
    charges: money.lines,
    event: 'policy.cancelled',
    room: { type: 'cancellation' },
  };
}
