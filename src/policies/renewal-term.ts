import { addDays, addMonthsClamped, compareDates, parseCalendarDate } from '../values/calendar-date.js';

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

/**
 * Whether `today` lies in the renewal window: from its opening onwards, with no end (the
 * contract's "from ... onwards", read literally: an expired policy may still be renewed; see
 * docs/decisions.md).
 */
export function inRenewalWindow(expirationDate: string, windowDays: number, today: string): boolean {
  return compareDates(today, renewalWindowOpens(expirationDate, windowDays)) >= 0;
}
