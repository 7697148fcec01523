import { invalidState } from '../../errors/errors.js';
import { duesOf, lapseDateOf } from './billing.js';
import { decideCancellation } from './decide-cancellation.js';
import type { DecideContext, Decision } from './decision.js';
import type { PolicyState } from './state.js';

/**
 * A lapse for non-payment (contract section 19, "Lapse"), decided on the locked ledger: when
 * `lapseDateOf` (billing.ts) gives a date for the state as it now stands (its dues, what was paid,
 * its latest transaction, the cancellation recorded) and BILLING_LAPSE_DAYS, a cancellation for
 * `non_payment` (so `pro_rata`) effective that date, by decide-cancellation.ts's rules; otherwise
 * 409 INVALID_STATE, which is also what a second lapse of one policy meets (a cancellation is
 * then recorded): the billing sweep takes that 409 as "nothing to do". Decided under the lock, a
 * payment that committed just before is counted.
 */
export function decideLapse(state: PolicyState, _command: null, context: DecideContext): Decision {
  const { policy, latest } = state;
  const lapse = latest
    ? lapseDateOf(
        { dues: duesOf(state.charges), paid: state.paid },
        { expirationDate: policy.expirationDate, latestEffectiveDate: latest.effectiveDate, cancelled: state.cancellation !== null },
        context.today,
        context.rules.billingLapseDays,
      )
    : null;
  if (lapse === null) throw invalidState(`Policy ${policy.number} has not lapsed for non-payment.`);
  return { ...decideCancellation(state, { effectiveDate: lapse, reason: 'non_payment' }, context), lapse: true };
}
