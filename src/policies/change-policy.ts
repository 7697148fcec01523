import type { PolicyRules } from '../config.js';
import { mostCancellationLines } from './ledger-room.js';
import { badUserInput, invalidState, type FieldError } from '../errors/errors.js';
import { compareDates, todayUtc } from '../values/calendar-date.js';
import type { CoverageSnapshot } from './coverage-plan.entity.js';
import { applyChanges, CHANGEABLE_FIELDS, fieldChanges, isBillingDate, planChangeCharges, type ChangedField } from './policy-change.js';
import type { ChangePolicyInput } from './policy-lifecycle.input.js';
import {
  assertTransactionDate,
  schedulePeriods,
  withLockedLedger,
  writeTransaction,
  type LedgerScope,
  type PolicyLedger,
} from './policy-ledger.js';
import type { PolicyRead } from './policy.reads.js';
import { currentPlan, unknownPlan } from './priced-body.js';
import { premiumSchedule } from './premium-schedule.js';

/**
 * Changes a policy mid-term (contract section 14, "Change"): one `change` transaction whose
 * `changes` name each field that differs from the value in effect on its date as `{ from, to }`,
 * and, for a new plan (only on a billing date), a credit of `-net(P)` and a premium at the new
 * plan's price for every schedule period from that date; with the `policy.changed` event, under
 * the policy's row lock. Reads show it from its effectiveDate on (its stored state: policy.reads.ts, FIELDS_TODAY).
 *
 * The order of refusals: 404 out of reach; then every 400 of the body against the policy at
 * once (unknown plan, a plan change off a billing date, a petDOB after the policy's
 * effectiveDate, nothing left to change); then 409 on its state (a cancellation in force or
 * scheduled, expired) and on the date (outside the term, before the latest transaction).
 */
export async function changePolicy(scope: LedgerScope, rules: PolicyRules, number: number, input: ChangePolicyInput): Promise<PolicyRead> {
  // The catalog is read before the lock is taken (it does not depend on the policy); an unknown
  // slug is refused only once the policy is known to be in reach, with the body's other errors.
  const plan = input.coverageSlug != null ? await currentPlan(scope.db, input.coverageSlug) : null;
  return withLockedLedger(scope, number, (tx, ledger) => {
    const { policy } = ledger;
    const errors: FieldError[] = [];
    if (input.coverageSlug != null && !plan) errors.push(unknownPlan());
    if (input.petDOB != null && compareDates(input.petDOB, policy.effectiveDate) > 0) {
      errors.push({ path: 'petDOB', message: `must not be after the policy's effectiveDate (${policy.effectiveDate})` });
    }
    // The values in effect on its date before it: those of today, then every change after today
    // (all earlier transactions are dated on or before this one's date).
    const before = applyChanges(policy, ledger.transactions) as unknown as Record<ChangedField, unknown>;
    const requested = { ...pick(input), coverageSlug: plan?.slug, coverage: plan ?? undefined };
    const changes = fieldChanges(before, requested);
    const schedule = schedulePeriods(ledger);
    if (changes.coverageSlug && !isBillingDate(schedule, input.effectiveDate)) {
      const next = schedule.find((period) => compareDates(period.periodStart, input.effectiveDate) > 0);
      errors.push({
        path: 'effectiveDate',
        message: `a change of coverage takes effect on a billing date, the start of a schedule period${next ? ` (the next is ${next.periodStart})` : ''}`,
      });
    }
    if (errors.length === 0 && Object.keys(changes).length === 0) {
      errors.push(
        ...CHANGEABLE_FIELDS.filter((field) => input[field] != null).map((path) => ({
          path,
          message: `is already the value in effect on ${input.effectiveDate}: nothing to change`,
        })),
      );
    }
    if (errors.length > 0) throw badUserInput(errors);
    assertChangeable(ledger);
    assertTransactionDate(ledger, input.effectiveDate);

    const charges = changes.coverageSlug
      ? planChangeCharges({
          newSchedule: premiumSchedule({
            effectiveDate: policy.effectiveDate,
            expirationDate: policy.expirationDate,
            monthlyPremium: (plan as CoverageSnapshot).monthlyPremium,
            currency: (plan as CoverageSnapshot).currency,
          }),
          ledger: ledger.charges,
          effectiveDate: input.effectiveDate,
        })
      : [];
    // In effect today (dated today or before): the answer shows it, as the next read will.
    const inEffect = compareDates(input.effectiveDate, todayUtc()) <= 0;
    return writeTransaction(tx, scope, ledger, {
      type: 'change',
      effectiveDate: input.effectiveDate,
      changes,
      charges,
      event: 'policy.changed',
      // A plan change must leave room for a cancellation from its date and that cancellation's reinstatement.
      room: {
        step: {
          type: 'other',
          cancellationAfter: mostCancellationLines(schedule, policy.effectiveDate, input.effectiveDate, rules.freeLookDays),
        },
        maxCharges: rules.maxCharges,
      },
      cancellation: null,
      shows: inEffect ? Object.fromEntries(Object.entries(changes).map(([field, change]) => [field, change.to])) : {},
    });
  });
}

/** The fields of the body that were given. */
function pick(input: ChangePolicyInput): Partial<Record<(typeof CHANGEABLE_FIELDS)[number], string>> {
  return Object.fromEntries(CHANGEABLE_FIELDS.flatMap((field) => (input[field] == null ? [] : [[field, input[field]]])));
}

/** Not when cancelled or with a cancellation scheduled, nor once expired (as for a cancellation). */
function assertChangeable({ policy, cancellation }: PolicyLedger): void {
  if (cancellation) {
    throw invalidState(
      `Policy ${policy.number} has a cancellation effective ${cancellation.effectiveDate}: it cannot be changed (reinstate it first).`,
    );
  }
  if (todayUtc() >= policy.expirationDate) throw invalidState(`Policy ${policy.number} expired on ${policy.expirationDate}.`);
}
