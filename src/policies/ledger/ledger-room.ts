import { compareDates } from '../../values/calendar-date.js';
import { withinFreeLook, type Period } from './cancellation-charges.js';

/**
 * Contract section 14, "Bounded ledgers": a policy's ledger holds at most POLICY_MAX_CHARGES
 * charges, and a step is refused only when it would leave no room for a cancellation and its
 * reinstatement. Pure: counts of lines, no database, no clock.
 *
 * The rule, step by step (docs/decisions.md, "Bounded ledgers"):
 * - a cancellation fits when its reinstatement fits after it (twice its lines), so a policy is
 *   never cancelled with no room to undo it;
 * - a reinstatement always fits: its cancellation kept the room for it;
 * - any other step that writes charges (a plan change) fits when a cancellation dated on or after
 *   it, whatever its method, fits with its reinstatement after it; a step that writes none uses
 *   no room and is never refused by the cap.
 * An unbounded number of cancel-and-reinstate cycles cannot fit a bounded ledger: the step that
 * runs out is then a cancellation, refused while the policy is active and whole, never a
 * reinstatement that would leave it cancelled for good.
 */

/**
 * The most charges one policy's ledger may ever hold, and POLICY_MAX_CHARGES's default and
 * ceiling: reads, list pages and the cost meter count a ledger at most this long.
 */
export const MAX_LEDGER_CHARGES = 1000;

/**
 * The most charges a cancellation dated on or after `from` writes: a credit for every schedule
 * period still running on its date, plus a short-rate fee (`insured_request` is always
 * allowed); or, within the free look, a flat credit for every period. Later dates run fewer
 * periods, so `from` itself is the worst.
 */
export function mostCancellationLines(
  schedule: readonly Period[],
  policyEffectiveDate: string,
  from: string,
  freeLookDays: number,
): number {
  const running = schedule.filter((period) => compareDates(period.periodEnd, from) > 0).length;
  const flat = withinFreeLook(policyEffectiveDate, from, freeLookDays) ? schedule.length : 0;
  return Math.max(running + 1, flat);
}

/** A step on a policy's ledger as the cap sees it. */
export type LedgerStep =
  | { type: 'cancellation' }
  | { type: 'reinstatement' }
  /** Any other step: `cancellationAfter` is mostCancellationLines from its date. */
  | { type: 'other'; cancellationAfter: number };

/** The charges a step must leave free after its own: the reinstatement of a cancellation, or a whole cancellation and its reinstatement. */
export function roomToLeave(step: LedgerStep, adding: number): number {
  if (step.type === 'cancellation') return adding;
  if (step.type === 'reinstatement') return 0;
  return 2 * step.cancellationAfter;
}

/** Whether a step adding `adding` charges to a ledger of `existing` may be written under `maxCharges`. */
export function stepFits(existing: number, adding: number, step: LedgerStep, maxCharges: number): boolean {
  if (adding === 0 || step.type === 'reinstatement') return true;
  return existing + adding + roomToLeave(step, adding) <= maxCharges;
}
