import { addDays, addMonthsClamped, compareDates, parseCalendarDate } from '../../values/calendar-date.js';

/**
 * The dates of a renewal (contract section 14, "Renew"), as pure functions of the old
 * policy's expirationDate.
 */

/**
 * The successor's term: from the old expirationDate for one year. One year is twelve calendar
 * months clamped to the month's last day, so Feb 29 gives Feb 28 of the next year (and every
 * other date the same day a year later). Null when it would end past 9999-12-31, which no date
 * of the service can be.
 */
export function renewalTerm(expirationDate: string): { effectiveDate: string; expirationDate: string } | null {
  const end = addMonthsClamped(expirationDate, 12);
  return parseCalendarDate(end) === null ? null : { effectiveDate: expirationDate, expirationDate: end };
}

/** The first day a policy expiring on `expirationDate` may be renewed: `windowDays` before it. */
export function renewalWindowOpens(expirationDate: string, windowDays: number): string {
  return addDays(expirationDate, -windowDays);
}

/** The last day a policy expiring on `expirationDate` may be renewed: `lateDays` after it (contract section 14). */
export function renewalWindowCloses(expirationDate: string, lateDays: number): string {
  return addDays(expirationDate, lateDays);
}

/** The renewal window's settings: POLICY_RENEWAL_WINDOW_DAYS and POLICY_RENEWAL_LATE_DAYS. */
export interface RenewalDays {
  windowDays: number;
  lateDays: number;
}

/**
 * Whether `today` lies in the renewal window: from `windowDays` before expirationDate to
 * `lateDays` after it, both days included. Without an end, a policy that lapsed years ago could
 * be renewed over and over, each time a new, backdated policy (security review 3, Info).
 */
export function inRenewalWindow(expirationDate: string, days: RenewalDays, today: string): boolean {
  return (
    compareDates(today, renewalWindowOpens(expirationDate, days.windowDays)) >= 0 &&
    compareDates(today, renewalWindowCloses(expirationDate, days.lateDays)) <= 0
  );
}
