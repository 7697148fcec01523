import { addMonthsClamped, daysBetween } from '../validation/calendar-date.js';

export interface ScheduledCharge {
  type: 'premium';
  periodStart: string;
  /** Exclusive. */
  periodEnd: string;
  dueDate: string;
  /** Cents. */
  amount: number;
  currency: string;
  status: 'scheduled';
}

export interface ScheduleTerms {
  effectiveDate: string;
  expirationDate: string;
  monthlyPremium: number;
  currency: string;
}

/**
 * The premium schedule of contract section 5: one charge per monthly period from
 * `effectiveDate` until `expirationDate`. Period k starts k calendar months after
 * `effectiveDate` (counted from it, not from the previous period, so Jan 31 -> Feb 28 ->
 * Mar 31). A final partial period is prorated by days against the full period it cuts short
 * and rounded half up to the cent. Dates must be valid with expirationDate after effectiveDate.
 */
export function premiumSchedule(terms: ScheduleTerms): ScheduledCharge[] {
  const { effectiveDate, expirationDate, monthlyPremium, currency } = terms;
  if (daysBetween(effectiveDate, expirationDate) <= 0) {
    throw new RangeError('expirationDate must be after effectiveDate');
  }
  const charges: ScheduledCharge[] = [];
  for (let k = 0; ; k++) {
    const periodStart = addMonthsClamped(effectiveDate, k);
    if (periodStart >= expirationDate) break;
    const fullEnd = addMonthsClamped(effectiveDate, k + 1);
    const periodEnd = fullEnd < expirationDate ? fullEnd : expirationDate;
    const amount =
      periodEnd === fullEnd
        ? monthlyPremium
        : prorate(monthlyPremium, daysBetween(periodStart, periodEnd), daysBetween(periodStart, fullEnd));
    charges.push({ type: 'premium', periodStart, periodEnd, dueDate: periodStart, amount, currency, status: 'scheduled' });
  }
  return charges;
}

/** monthlyPremium x days / fullDays, rounded half up, in integers so no float error creeps in. */
function prorate(monthlyPremium: number, days: number, fullDays: number): number {
  return Math.floor((2 * monthlyPremium * days + fullDays) / (2 * fullDays));
}
