import { badUserInput, invalidState, type FieldError } from '../../errors/errors.js';
import { compareDates } from '../../values/calendar-date.js';
import type { CoverageSnapshot } from '../coverage-plan.entity.js';
import { mostCancellationLines } from './ledger-room.js';
import { CHANGEABLE_FIELDS, fieldChanges, isBillingDate, planChangeCharges, type ChangeableField } from './policy-change.js';
import { premiumSchedule } from './premium-schedule.js';
import { unknownPlan } from '../priced-body.js';
import { assertNotExpired, assertTransactionDate, type DecideContext, type Decision } from './decision.js';
import { latestFields, type PolicyState } from './state.js';

/** A change body (ChangePolicyInput) and the new plan's snapshot, read before the lock: null for none asked or an unknown slug. */
export type ChangeCommand = { effectiveDate: string; plan: CoverageSnapshot | null } & Partial<Record<ChangeableField, string | null>>;

/**
 * A mid-term change (contract section 14, "Change"): its `changes` name each field that differs
 * from the value in effect on its date as `{ from, to }`, and, for a new plan (only on a billing
 * date), a credit of `-net(P)` and a premium at the new plan's price for every schedule period
 * from that date.
 *
 * The order of refusals: every 400 of the body against the policy at once (unknown plan, a plan
 * change off a billing date, a petDOB after the policy's effectiveDate, nothing left to change);
 * then 409 on its state (a cancellation in force or scheduled, expired) and on the date (outside
 * the term, before the latest transaction).
 */
export function decideChange(state: PolicyState, command: ChangeCommand, { today, rules }: DecideContext): Decision {
  const { policy, schedule } = state;
  const { effectiveDate, plan } = command;
  const errors: FieldError[] = [];
  if (command.coverageSlug != null && !plan) errors.push(unknownPlan());
  if (command.petDOB != null && compareDates(command.petDOB, policy.effectiveDate) > 0) {
    errors.push({ path: 'petDOB', message: `must not be after the policy's effectiveDate (${policy.effectiveDate})` });
  }
  // The values in effect on its date before it: those after every change (all earlier
  // transactions are dated on or before this one's date; one that is not is refused below).
  const requested = { ...given(command), coverageSlug: plan?.slug, coverage: plan ?? undefined };
  const changes = fieldChanges(latestFields(state), requested);
  if (changes.coverageSlug && !isBillingDate(schedule, effectiveDate)) {
    const next = schedule.find((period) => compareDates(period.periodStart, effectiveDate) > 0);
    errors.push({
      path: 'effectiveDate',
      message: `a change of coverage takes effect on a billing date, the start of a schedule period${next ? ` (the next is ${next.periodStart})` : ''}`,
    });
  }
  if (errors.length === 0 && Object.keys(changes).length === 0) {
    errors.push(
      ...CHANGEABLE_FIELDS.filter((field) => command[field] != null).map((path) => ({
        path,
        message: `is already the value in effect on ${effectiveDate}: nothing to change`,
      })),
    );
  }
  if (errors.length > 0) throw badUserInput(errors);
  if (state.cancellation) {
    throw invalidState(
      `Policy ${policy.number} has a cancellation effective ${state.cancellation.effectiveDate}: it cannot be changed (reinstate it first).`,
    );
  }
  assertNotExpired(state, today);
  assertTransactionDate(state, effectiveDate);

  const charges = changes.coverageSlug
    ? planChangeCharges({
        newSchedule: premiumSchedule({
          effectiveDate: policy.effectiveDate,
          expirationDate: policy.expirationDate,
          monthlyPremium: (plan as CoverageSnapshot).monthlyPremium,
          currency: (plan as CoverageSnapshot).currency,
        }),
        ledger: state.charges,
        effectiveDate,
      })
    : [];
  return {
    kind: 'change',
    effectiveDate,
    changes,
    charges,
    event: 'policy.changed',
    // A plan change must leave room for a cancellation from its date and that cancellation's reinstatement.
    room: { type: 'other', cancellationAfter: mostCancellationLines(schedule, policy.effectiveDate, effectiveDate, rules.freeLookDays) },
  };
}

/** The fields of the body that were given. */
function given(command: ChangeCommand): Partial<Record<ChangeableField, string>> {
  return Object.fromEntries(CHANGEABLE_FIELDS.flatMap((field) => (command[field] == null ? [] : [[field, command[field]]])));
}
