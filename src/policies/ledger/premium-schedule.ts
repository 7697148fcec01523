import { addMonthsClamped, compareDates, daysBetween } from '../../values/calendar-date.js';

/** The most charges a schedule can have: a 5-year term is 60 monthly periods; one more for safety. */
export const MAX_CHARGES = 61;

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
 * The premium schedule of spec section 5: one charge per monthly period from
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
    // Compared as dates, not text: a full period may end in year 10000.
    if (compareDates(periodStart, expirationDate) >= 0) break;
    const fullEnd = addMonthsClamped(effectiveDate, k + 1);
    const periodEnd = compareDates(fullEnd, expirationDate) < 0 ? fullEnd : expirationDate;
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
