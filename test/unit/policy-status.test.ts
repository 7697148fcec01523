import { describe, expect, it } from 'vitest';
import { policyStatus } from '../../src/policies/policy-status.js';
import { todayUtc } from '../../src/values/calendar-date.js';

describe('policyStatus (spec section 14)', () => {
  const policy = { effectiveDate: '2026-03-01', expirationDate: '2027-03-01' };

  it('is pending before effectiveDate, active from it, expired from expirationDate (exclusive end)', () => {
    expect(policyStatus(policy, '2026-02-28')).toBe('pending');
    expect(policyStatus(policy, '2026-03-01')).toBe('active');
    expect(policyStatus(policy, '2027-02-28')).toBe('active');
    expect(policyStatus(policy, '2027-03-01')).toBe('expired');
    expect(policyStatus(policy, '2030-01-01')).toBe('expired');
  });

  it('is cancelled from the day its cancellation takes effect, even past expiry; not before', () => {
    const cancelled = { ...policy, cancellation: { effectiveDate: '2026-06-15' } };
    expect(policyStatus(cancelled, '2026-06-14')).toBe('active');
    expect(policyStatus(cancelled, '2026-06-15')).toBe('cancelled');
    expect(policyStatus(cancelled, '2030-01-01')).toBe('cancelled');
    expect(policyStatus({ ...policy, cancellation: null }, '2026-06-15')).toBe('active');
  });

  it('judges today in UTC', () => {
    expect(todayUtc(new Date('2026-03-01T23:30:00-05:00'))).toBe('2026-03-02');
    expect(todayUtc(new Date('2026-03-01T00:30:00+02:00'))).toBe('2026-02-28');
  });
});
