import { invalidState } from '../../errors/errors.js';
import { duesOf, lapseDateOf } from './billing.js';
import { cancellationOf } from './decide-cancellation.js';
import type { DecideContext, Decision } from './decision.js';
import type { PolicyState } from './state.js';

/** What a lapse is decided with besides the state: the dates of the lapses already written on the policy. */
export interface LapseCommand {
  lapsedBefore: readonly string[];
}

/**
 * A lapse for non-payment (contract section 19, "Lapse"), decided on the locked ledger: when
 * `lapseDateOf` (billing.ts) gives a date for the state as it now stands (its dues, what was paid,
 * its latest transaction, the cancellation recorded) and BILLING_LAPSE_DAYS, a cancellation for
 * `non_payment` (so `pro_rata`) effective that date. Section 19's conditions are the whole rule:
 * the lapse date lies in the term and not before the latest transaction by construction, and a
 * policy whose term has ended since is lapsed all the same (section 14's "an expired policy is
 * not cancelled" is a caller's rule). Each lapse is written once: one undone by a reinstatement
 * with nothing paid has the same date, and is not written again. Otherwise 409 INVALID_STATE,
 * which the billing sweep takes as "nothing to do" (a payment committed first, another sweep
 * lapsed it).
 */
export function decideLapse(state: PolicyState, command: LapseCommand, context: DecideContext): Decision {
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
  if (command.lapsedBefore.includes(lapse)) throw invalidState(`Policy ${policy.number}'s lapse of ${lapse} was recorded already.`);
  return { ...cancellationOf(state, { effectiveDate: lapse, reason: 'non_payment' }, context.rules.shortRatePercent), lapse: true };
}
