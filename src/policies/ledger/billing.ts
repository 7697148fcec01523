import { addDays, compareDates } from '../../values/calendar-date.js';
import type { BillingStatus } from '../billing-status.js';

/**
 * Contract section 19's billing summary, pure: from what is due on each day (`dues`) and what was
 * paid (`paid`, payments minus refunds), as of `today`. No database, no clock: reads compute it
 * from the stored state (policy_state's `dues` and `paid`), the refund's decide and the lapse
 * sweep from the same function.
 */

/** What the charges due on one day sum to: `[dueDate, cents]`, never 0, in date order. */
export type Due = readonly [dueDate: string, amount: number];

export interface BillingBasis {
  dues: readonly Due[];
  paid: number;
}

export interface Billing {
  billed: number;
  paid: number;
  balance: number;
  pastDue: number;
  status: BillingStatus;
  nextDueDate: string | null;
  nextDueAmount: number | null;
}

/**
 * `a` before `b` (negative), the same day (0) or after. Every read computes billing, so dates of
 * the same length (YYYY-MM-DD, zero-padded: the order of their text is the order of the days)
 * are compared as text; only a date past year 9999 (longer) is parsed (compareDates).
 */
function order(a: string, b: string): number {
  return a.length === b.length ? (a < b ? -1 : a > b ? 1 : 0) : compareDates(a, b);
}

/** The charges summed per due date, days whose charges sum to 0 left out (a premium and its credit). */
export function duesOf(charges: readonly { dueDate: string; amount: number }[]): Due[] {
  const byDate = new Map<string, number>();
  for (const { dueDate, amount } of charges) byDate.set(dueDate, (byDate.get(dueDate) ?? 0) + amount);
  return [...byDate].filter(([, amount]) => amount !== 0).sort(([a], [b]) => order(a, b));
}

/** The sum of what falls due on or before `date`. */
function dueBy(dues: readonly Due[], date: string): number {
  let sum = 0;
  for (const [dueDate, amount] of dues) {
    if (order(dueDate, date) > 0) break;
    sum += amount;
  }
  return sum;
}

/** `today` less the grace: the same for every policy of a read, so the last one is kept. */
function graceStart(today: string, graceDays: number): string {
  if (today !== lastGrace.today || graceDays !== lastGrace.days) lastGrace = { today, days: graceDays, start: addDays(today, -graceDays) };
  return lastGrace.start;
}
let lastGrace = { today: '', days: 0, start: '' };

/** The billing summary on `today` (contract section 19), `graceDays` being BILLING_GRACE_DAYS. */
export function billingOf({ dues, paid }: BillingBasis, today: string, graceDays: number): Billing {
  const billed = dueBy(dues, today);
  const balance = billed - paid;
  const pastDue = Math.max(0, dueBy(dues, graceStart(today, graceDays)) - paid);
  const next = dues.find(([dueDate]) => order(dueDate, today) > 0);
  return {
    billed,
    paid,
    balance,
    pastDue,
    status: balance < 0 ? 'credit' : pastDue > 0 ? 'past_due' : balance > 0 ? 'due' : 'settled',
    nextDueDate: next?.[0] ?? null,
    nextDueAmount: next?.[1] ?? null,
  };
}

/**
 * The oldest unpaid due date `u` (contract section 19, "Lapse"): the earliest date on which the
 * charges due on or before it sum to more than `paid`; null when none ever does. It does not
 * depend on today, so the writer stores it with the state (the sweep's index).
 */
export function oldestUnpaidDueDate({ dues, paid }: BillingBasis): string | null {
  let sum = 0;
  for (const [dueDate, amount] of dues) {
    sum += amount;
    if (sum > paid) return dueDate;
  }
  return null;
}

/**
 * The date a policy lapses for non-payment, if it does: the later of `u + lapseDays` and the
 * latest transaction's effectiveDate, when that is on or before `today` and before the policy's
 * expirationDate and no cancellation is recorded; else null. `lapseDays` 0: lapse is off.
 */
export function lapseDateOf(
  basis: BillingBasis,
  policy: { expirationDate: string; latestEffectiveDate: string; cancelled: boolean },
  today: string,
  lapseDays: number,
): string | null {
  if (lapseDays <= 0 || policy.cancelled) return null;
  const unpaid = oldestUnpaidDueDate(basis);
  if (unpaid === null) return null;
  const afterDays = addDays(unpaid, lapseDays);
  const lapse = compareDates(afterDays, policy.latestEffectiveDate) >= 0 ? afterDays : policy.latestEffectiveDate;
  if (compareDates(today, lapse) < 0 || compareDates(lapse, policy.expirationDate) >= 0) return null;
  return lapse;
}
