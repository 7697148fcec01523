import fc from 'fast-check';
import { sumOfAmounts } from '../support/fixtures.js';
import { describe, expect, it } from 'vitest';
import {
  canReinstate,
  cancellationCharges,
  cancellationMethod,
  reversalLines,
  roundedShare,
  withinFreeLook,
  type CancellationMethod,
} from '../../src/policies/ledger/cancellation-charges.js';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { addMonthsClamped } from '../../src/values/calendar-date.js';

/** One year of accident-illness-plus (4200 cents a month) from 2026-01-01: 12 × 4200 = 50400. */
const PLUS_YEAR = premiumSchedule({ effectiveDate: '2026-01-01', expirationDate: '2027-01-01', monthlyPremium: 4200, currency: 'USD' });

function cancel(
  schedule: typeof PLUS_YEAR,
  effectiveDate: string,
  method: CancellationMethod,
  expirationDate = schedule.at(-1)!.periodEnd,
) {
  return cancellationCharges({ schedule, ledger: schedule, effectiveDate, expirationDate, method, shortRatePercent: 10 });
}

describe('cancellation money, worked by hand', () => {
  it('pro_rata on 2026-05-10: May credits 22/31 of 4200 = 2980.65 -> 2981, June..December 7 × 4200; 50400 - 32381 = 18019 owed', () => {
    const money = cancel(PLUS_YEAR, '2026-05-10', 'pro_rata');
    expect(money.lines).toHaveLength(8);
    expect(money.lines[0]).toEqual({
      type: 'credit',
      periodStart: '2026-05-10',
      periodEnd: '2026-06-01',
      dueDate: '2026-05-10',
      amount: -2981,
    });
    expect(money.lines.slice(1).map((line) => [line.periodStart, line.amount])).toEqual(
      ['06', '07', '08', '09', '10', '11', '12'].map((month) => [`2026-${month}-01`, -4200]),
    );
    expect(money.credited).toBe(-32381);
    expect(money.fee).toBe(0);
    expect(sumOfAmounts(PLUS_YEAR) + sumOfAmounts(money.lines)).toBe(18019);
  });

  it('short_rate on 2026-05-10: the same credits -32381 and a fee of 10% = 3238.1 -> 3238; 18019 + 3238 = 21257 owed', () => {
    const money = cancel(PLUS_YEAR, '2026-05-10', 'short_rate');
    expect(money.credited).toBe(-32381);
    expect(money.fee).toBe(3238);
    expect(money.lines.at(-1)).toEqual({
      type: 'fee',
      periodStart: '2026-05-10',
      periodEnd: '2027-01-01',
      dueDate: '2026-05-10',
      amount: 3238,
    });
    expect(sumOfAmounts(PLUS_YEAR) + sumOfAmounts(money.lines)).toBe(21257);
  });

  it('free_look (flat) on day 10, 2026-01-11: every period credited in full, 12 × -4200 = -50400, 0 owed', () => {
    expect(withinFreeLook('2026-01-01', '2026-01-11', 15)).toBe(true);
    const money = cancel(PLUS_YEAR, '2026-01-11', 'flat');
    expect(money.lines).toHaveLength(12);
    expect(money.lines[0]).toEqual({
      type: 'credit',
      periodStart: '2026-01-11',
      periodEnd: '2026-02-01',
      dueDate: '2026-01-11',
      amount: -4200,
    });
    expect(money.credited).toBe(-50400);
    expect(sumOfAmounts(PLUS_YEAR) + sumOfAmounts(money.lines)).toBe(0);
  });

  it('free_look asked on day 20 (2026-01-21) is past the 15 days; day 15 is the last', () => {
    expect(withinFreeLook('2026-01-01', '2026-01-21', 15)).toBe(false);
    expect(withinFreeLook('2026-01-01', '2026-01-16', 15)).toBe(true);
    expect(withinFreeLook('2026-01-01', '2026-01-17', 15)).toBe(false);
  });

  it('rounds half up on the absolute value and keeps the sign: 2.5 -> 3, -2.5 -> -3, a fee of 10% of 32385 = 3238.5 -> 3239', () => {
    expect(roundedShare(5, 1, 2)).toBe(3);
    expect(roundedShare(-5, 1, 2)).toBe(-3);
    expect(roundedShare(-4, 1, 3)).toBe(-1);
    expect(roundedShare(32385, 10, 100)).toBe(3239);
    expect(Object.is(roundedShare(-1, 1, 3), 0)).toBe(true);
  });

  it('picks the method from the reason', () => {
    expect(cancellationMethod('free_look')).toBe('flat');
    expect(cancellationMethod('insured_request')).toBe('short_rate');
    for (const reason of ['non_payment', 'underwriting', 'fraud', 'other'] as const) expect(cancellationMethod(reason)).toBe('pro_rata');
  });

  it('reinstates a future cancellation or one at most 30 days old, never one for fraud', () => {
    expect(canReinstate({ effectiveDate: '2026-05-10', reason: 'other' }, '2026-05-01', 30)).toBe(true);
    expect(canReinstate({ effectiveDate: '2026-05-10', reason: 'other' }, '2026-06-09', 30)).toBe(true);
    expect(canReinstate({ effectiveDate: '2026-05-10', reason: 'other' }, '2026-06-10', 30)).toBe(false);
    expect(canReinstate({ effectiveDate: '2026-05-10', reason: 'fraud' }, '2026-05-01', 30)).toBe(false);
  });
});

/** Days from `a` to `b` counted one by one: independent of the code under test. */
function countDays(a: string, b: string): number {
  let days = 0;
  for (let day = new Date(`${a}T00:00:00Z`); day < new Date(`${b}T00:00:00Z`); day.setUTCDate(day.getUTCDate() + 1)) days++;
  return days;
}

const dayAfter = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** A random policy (start, 1 to 60 months plus 0 to 27 days, so often a partial final period) and a cancellation date in its term. */
const policyAndDate = fc
  .record({
    start: fc.integer({ min: 0, max: 365 * 8 }).map((offset) => dayAfter('2024-01-01', offset)),
    months: fc.integer({ min: 0, max: 59 }),
    extraDays: fc.integer({ min: 0, max: 27 }),
    monthlyPremium: fc.integer({ min: 0, max: 200_000 }),
    at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  })
  .filter(({ months, extraDays }) => months > 0 || extraDays > 0)
  .map(({ start, months, extraDays, monthlyPremium, at }) => {
    const expirationDate = dayAfter(addMonthsClamped(start, months), extraDays);
    const schedule = premiumSchedule({ effectiveDate: start, expirationDate, monthlyPremium, currency: 'USD' });
    const effectiveDate = dayAfter(start, Math.floor(at * countDays(start, expirationDate)));
    return { schedule, expirationDate, effectiveDate };
  });

describe('cancellation money, for any policy and date', () => {
  it('pro_rata leaves exactly the earned premium: each period minus round(its amount × unearned days ÷ its days)', () => {
    fc.assert(
      fc.property(policyAndDate, ({ schedule, expirationDate, effectiveDate }) => {
        const money = cancel(schedule, effectiveDate, 'pro_rata', expirationDate);
        const earned = schedule.reduce((total, { periodStart, periodEnd, amount }) => {
          if (periodEnd <= effectiveDate) return total + amount;
          const unearned = countDays(periodStart > effectiveDate ? periodStart : effectiveDate, periodEnd);
          return total + amount - Math.round((amount * unearned) / countDays(periodStart, periodEnd));
        }, 0);
        expect(sumOfAmounts(schedule) + sumOfAmounts(money.lines)).toBe(earned);
        expect(money.lines.every((line) => line.amount <= 0 && line.periodEnd > line.periodStart)).toBe(true);
      }),
    );
  });

  it('short_rate adds a fee of 10% of the credits, rounded half up; flat credits everything', () => {
    fc.assert(
      fc.property(policyAndDate, ({ schedule, expirationDate, effectiveDate }) => {
        const money = cancel(schedule, effectiveDate, 'short_rate', expirationDate);
        expect(money.fee).toBe(Math.round(Math.abs(money.credited) / 10));
        expect(sumOfAmounts(money.lines)).toBe(money.credited + money.fee);
        expect(sumOfAmounts(schedule) + sumOfAmounts(cancel(schedule, effectiveDate, 'flat', expirationDate).lines)).toBe(0);
      }),
    );
  });

  it('reinstating (a reversal of each charge) brings the sum back to what it was, to the cent', () => {
    fc.assert(
      fc.property(
        policyAndDate,
        fc.constantFrom<CancellationMethod>('flat', 'short_rate', 'pro_rata'),
        ({ schedule, expirationDate, effectiveDate }, method) => {
          const written = cancel(schedule, effectiveDate, method, expirationDate).lines.map((line, index) => ({
            ...line,
            id: `c${index}`,
          }));
          const reversals = reversalLines(written);
          expect(reversals.map((line) => line.reverses)).toEqual(written.map((line) => line.id));
          expect(sumOfAmounts(schedule) + sumOfAmounts(written) + sumOfAmounts(reversals)).toBe(sumOfAmounts(schedule));
        },
      ),
    );
  });
});
