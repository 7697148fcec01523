import { afterEach, describe, expect, it, vi } from 'vitest';
import { addMonthsClamped, compareDates, daysBetween, isCalendarDate, todayUtc } from '../../src/values/calendar-date.js';

describe('calendar dates', () => {
  it.each(['2026-01-01', '2024-02-29', '2000-02-29', '2026-12-31'])('accepts %s', (date) => {
    expect(isCalendarDate(date)).toBe(true);
  });

  it.each([
    '2026-02-29',
    '1900-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '2026-1-01',
    '20260101',
    '2026-01-01T00:00:00Z',
    '',
    ' 2026-01-01',
    '0000-01-01',
  ])('rejects %j', (date) => {
    expect(isCalendarDate(date)).toBe(false);
  });

  it('adds months with clamping', () => {
    expect(addMonthsClamped('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonthsClamped('2026-01-31', 2)).toBe('2026-03-31');
    expect(addMonthsClamped('2026-12-15', 1)).toBe('2027-01-15');
    expect(addMonthsClamped('2024-02-29', 12)).toBe('2025-02-28');
  });

  it('counts days across daylight-saving changes and leap days', () => {
    expect(daysBetween('2026-03-01', '2026-04-01')).toBe(31);
    expect(daysBetween('2024-02-01', '2024-03-01')).toBe(29);
  });

  it('judges today in UTC', () => {
    expect(todayUtc(new Date('2026-11-22T23:30:00-05:00'))).toBe('2026-11-23');
  });

  it('orders dates by time, also past year 9999 where text order breaks', () => {
    expect(compareDates('9999-12-31', addMonthsClamped('9995-01-31', 60))).toBeLessThan(0);
    expect('9999-12-31' < addMonthsClamped('9995-01-31', 60)).toBe(false); // why: as text it sorts after
    expect(compareDates('2026-01-01', '2026-01-01')).toBe(0);
    expect(daysBetween('9999-12-31', '10000-01-01')).toBe(1);
  });

  describe('today, kept until the next UTC midnight', () => {
    afterEach(() => vi.useRealTimers());

    it('turns at midnight UTC, and follows a clock set back', () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2026-11-28T23:59:59.999Z'));
      expect(todayUtc()).toBe('2026-11-28');
      vi.setSystemTime(new Date('2026-11-29T00:00:00.000Z'));
      expect(todayUtc()).toBe('2026-11-29');
      vi.setSystemTime(new Date('2026-11-28T12:00:00.000Z'));
      expect(todayUtc()).toBe('2026-11-28');
    });
  });
});
