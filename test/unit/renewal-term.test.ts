import { describe, expect, it } from 'vitest';
import { inRenewalWindow, renewalTerm, renewalWindowCloses, renewalWindowOpens } from '../../src/policies/ledger/renewal-term.js';

describe('a renewal term (contract section 14, "Renew")', () => {
  it('runs from the old expirationDate for one year, the same day a year later', () => {
    expect(renewalTerm('2027-01-01')).toEqual({ effectiveDate: '2027-01-01', expirationDate: '2028-01-01' });
    expect(renewalTerm('2026-12-31')).toEqual({ effectiveDate: '2026-12-31', expirationDate: '2027-12-31' });
    // Calendar months, not 365 days: a year holding a Feb 29 is 366 days.
    expect(renewalTerm('2027-03-01')?.expirationDate).toBe('2028-03-01');
    expect(renewalTerm('2028-01-15')?.expirationDate).toBe('2029-01-15');
    // Feb 28 of a year before a leap year stays Feb 28 (not the 29th).
    expect(renewalTerm('2027-02-28')).toEqual({ effectiveDate: '2027-02-28', expirationDate: '2028-02-28' });
  });

  it('turns Feb 29 into Feb 28 of the next year', () => {
    expect(renewalTerm('2028-02-29')).toEqual({ effectiveDate: '2028-02-29', expirationDate: '2029-02-28' });
    expect(renewalTerm('2024-02-29')?.expirationDate).toBe('2025-02-28');
  });

  it('has none past 9999-12-31', () => {
    expect(renewalTerm('9999-01-01')).toBeNull();
    expect(renewalTerm('9998-12-31')).toEqual({ effectiveDate: '9998-12-31', expirationDate: '9999-12-31' });
  });
});

describe('the renewal window', () => {
  const defaults = { windowDays: 60, lateDays: 30 };

  it('opens windowDays before expirationDate', () => {
    expect(renewalWindowOpens('2027-01-01', 60)).toBe('2026-11-02');
    expect(inRenewalWindow('2027-01-01', defaults, '2026-11-01')).toBe(false);
    expect(inRenewalWindow('2027-01-01', defaults, '2026-11-02')).toBe(true);
    expect(inRenewalWindow('2027-01-01', defaults, '2027-01-01')).toBe(true);
    // 0: only from the expirationDate on.
    expect(inRenewalWindow('2027-01-01', { windowDays: 0, lateDays: 30 }, '2026-12-31')).toBe(false);
    expect(inRenewalWindow('2027-01-01', { windowDays: 0, lateDays: 30 }, '2027-01-01')).toBe(true);
  });

  it('closes lateDays after expirationDate, that day included (issue 37: renewal had no end)', () => {
    expect(renewalWindowCloses('2027-01-01', 30)).toBe('2027-01-31');
    expect(inRenewalWindow('2027-01-01', defaults, '2027-01-31')).toBe(true);
    expect(inRenewalWindow('2027-01-01', defaults, '2027-02-01')).toBe(false);
    expect(inRenewalWindow('2027-01-01', defaults, '2030-06-01')).toBe(false);
    // Across a year's end and a leap day.
    expect(renewalWindowCloses('2027-12-15', 30)).toBe('2028-01-14');
    expect(renewalWindowCloses('2028-02-15', 30)).toBe('2028-03-16');
    // 0: renewable on the expirationDate itself, not the day after.
    expect(inRenewalWindow('2027-01-01', { windowDays: 60, lateDays: 0 }, '2027-01-01')).toBe(true);
    expect(inRenewalWindow('2027-01-01', { windowDays: 60, lateDays: 0 }, '2027-01-02')).toBe(false);
  });
});
