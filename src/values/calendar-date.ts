/**
 * Calendar dates as `YYYY-MM-DD` strings, computed in UTC so results never depend on the
 * server's time zone ("today" and "the future" are judged in UTC, spec section 5).
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Dates the service computes (a limit five years out) may reach year 10000. */
const COMPUTED_DATE = /^(\d{4,6})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** Milliseconds since the epoch at UTC midnight, or null unless a real calendar date (4-digit year). */
export function parseCalendarDate(value: string): number | null {
  return timeOf(value, DATE);
}

/**
 * Orders two dates by time, not as text: `10000-01-01` sorts before `9999-12-31` as a string.
 * Negative when `a` is earlier, 0 when equal, positive when later.
 */
export function compareDates(a: string, b: string): number {
  return checkedTime(a) - checkedTime(b);
}

/** The time of a date already checked or computed by the service: anything else is a bug. */
function checkedTime(date: string): number {
  const time = timeOf(date, COMPUTED_DATE);
  if (time === null) throw new Error(`not a calendar date: ${date}`);
  return time;
}

function timeOf(value: string, pattern: RegExp): number | null {
  const match = pattern.exec(value);
  if (!match) return null;
  const [year, month, day] = match.slice(1).map(Number);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const time = new Date(0);
  time.setUTCFullYear(year, month - 1, day);
  return time.getTime();
}

export function isCalendarDate(value: unknown): value is string {
  return typeof value === 'string' && parseCalendarDate(value) !== null;
}

export function formatCalendarDate(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * Today in UTC, `YYYY-MM-DD`. Every policy a read returns asks for it (its status, its billing),
 * so without `now` the day is kept until the next UTC midnight: one comparison instead of a
 * Date and its ISO text each time.
 */
export function todayUtc(now?: Date): string {
  if (now) return now.toISOString().slice(0, 10);
  const time = Date.now();
  if (time >= today.until || time < today.from) {
    const from = time - (time % DAY_MS);
    today = { day: new Date(from).toISOString().slice(0, 10), from, until: from + DAY_MS };
  }
  return today.day;
}
let today = { day: '', from: 0, until: 0 };

/** `date` plus `days` days (negative: earlier). */
export function addDays(date: string, days: number): string {
  return formatCalendarDate(checkedTime(date) + days * DAY_MS);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round(compareDates(to, from) / DAY_MS);
}

/** `date` plus `months` calendar months, clamped to the last day of the target month. */
export function addMonthsClamped(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = (index % 12) + 1;
  const targetDay = Math.min(day, daysInMonth(targetYear, targetMonth));
  return `${String(targetYear).padStart(4, '0')}-${String(targetMonth).padStart(2, '0')}-${String(targetDay).padStart(2, '0')}`;
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}
