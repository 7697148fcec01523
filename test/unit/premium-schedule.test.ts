import { describe, expect, it } from 'vitest';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';

const terms = (effectiveDate: string, expirationDate: string, monthlyPremium = 2900) => ({
  effectiveDate,
  expirationDate,
  monthlyPremium,
  currency: 'USD',
});

describe('premiumSchedule', () => {
  it('makes 12 equal charges for one year', () => {
    const charges = premiumSchedule(terms('2026-03-15', '2027-03-15'));
    expect(charges).toHaveLength(12);
    expect(charges.every((charge) => charge.amount === 2900)).toBe(true);
    expect(charges[0]).toEqual({
      type: 'premium',
      periodStart: '2026-03-15',
      periodEnd: '2026-04-15',
      dueDate: '2026-03-15',
      amount: 2900,
      currency: 'USD',
      status: 'scheduled',
    });
    expect(charges[11].periodEnd).toBe('2027-03-15');
    // Periods tile the term: each ends where the next starts.
    for (let k = 1; k < charges.length; k++) expect(charges[k].periodStart).toBe(charges[k - 1].periodEnd);
  });

  it('clamps to the end of shorter months, always counting from the effective date', () => {
    const starts = premiumSchedule(terms('2026-01-31', '2027-01-31')).map((charge) => charge.periodStart);
    expect(starts.slice(0, 4)).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
    expect(starts).toHaveLength(12);
    expect(starts[11]).toBe('2026-12-31');
  });

  it('clamps to February 29 in a leap year', () => {
    const starts = premiumSchedule(terms('2028-01-30', '2028-04-30')).map((charge) => charge.periodStart);
    expect(starts).toEqual(['2028-01-30', '2028-02-29', '2028-03-30']);
  });

  it('prorates a final partial period by days, rounded half up to the cent', () => {
    const charges = premiumSchedule(terms('2026-01-31', '2026-05-15', 1200));
    expect(charges.map((c) => [c.periodStart, c.periodEnd, c.amount])).toEqual([
      ['2026-01-31', '2026-02-28', 1200],
      ['2026-02-28', '2026-03-31', 1200],
      ['2026-03-31', '2026-04-30', 1200],
      // 15 of the 31 days from Apr 30 to May 31: 1200 x 15 / 31 = 580.64 -> 581
      ['2026-04-30', '2026-05-15', 581],
    ]);
  });

  it('rounds an exact half cent up', () => {
    // Apr 1 -> May 1 is 30 days; 15 of them at 4201 cents a month = 2100.5 -> 2101.
    const [charge] = premiumSchedule(terms('2026-04-01', '2026-04-16', 4201));
    expect(charge.amount).toBe(2101);
  });

  it('charges a term shorter than a month once, prorated', () => {
    const charges = premiumSchedule(terms('2026-06-01', '2026-06-02', 6400));
    // 1 of 30 days: 6400 / 30 = 213.33 -> 213
    expect(charges).toEqual([expect.objectContaining({ periodStart: '2026-06-01', periodEnd: '2026-06-02', amount: 213 })]);
  });

  it('makes 60 charges for the longest term of five years', () => {
    expect(premiumSchedule(terms('2026-02-28', '2031-02-28'))).toHaveLength(60);
  });

  it('refuses an expiration on or before the effective date', () => {
    expect(() => premiumSchedule(terms('2026-01-01', '2026-01-01'))).toThrow(RangeError);
  });
});
