import fc from 'fast-check';
import { sumOfAmounts } from '../support/fixtures.js';
import { describe, expect, it } from 'vitest';
import { net } from '../../src/policies/ledger/cancellation-charges.js';
import { fieldsOn, fold, latestFields, type PolicyFields, type PostedTransaction } from '../../src/policies/ledger/state.js';
import {
  CHANGEABLE_FIELDS,
  fieldChanges,
  FIXED_AT_ISSUE,
  isBillingDate,
  planChangeCharges,
} from '../../src/policies/ledger/policy-change.js';
import { POLICY_WRITE } from '../../src/policies/policy.writes.js';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { addDays } from '../../src/values/calendar-date.js';

const schedule = (effectiveDate: string, expirationDate: string, monthlyPremium: number) =>
  premiumSchedule({ effectiveDate, expirationDate, monthlyPremium, currency: 'USD' });

describe('which fields a change may set (issue 36: a field left out was silently frozen at issue)', () => {
  it('puts every field of POLICY_WRITE in one list: CHANGEABLE_FIELDS, FIXED_AT_ISSUE, or coverage (which follows coverageSlug)', () => {
    const lists: Record<string, readonly string[]> = { CHANGEABLE_FIELDS, FIXED_AT_ISSUE, 'coverage, with coverageSlug': ['coverage'] };
    for (const field of Object.keys(POLICY_WRITE)) {
      const holding = Object.keys(lists).filter((name) => lists[name].includes(field));
      expect(
        holding,
        `${field}: put it in CHANGEABLE_FIELDS (src/policies/ledger/policy-change.ts) if a change may set it, else in FIXED_AT_ISSUE`,
      ).toHaveLength(1);
    }
    expect(Object.values(lists).flat().sort()).toEqual(Object.keys(POLICY_WRITE).sort());
  });
});

describe('the money of a plan change, worked by hand', () => {
  it('basic (2900) to plus (4200) on 2026-04-01 of 2026: 9 credits of -2900 and 9 premiums of 4200; 3 × 2900 + 9 × 4200 = 46500 owed', () => {
    const basic = schedule('2026-01-01', '2027-01-01', 2900);
    const lines = planChangeCharges({
      newSchedule: schedule('2026-01-01', '2027-01-01', 4200),
      ledger: basic,
      effectiveDate: '2026-04-01',
    });
    expect(lines).toHaveLength(18);
    expect(lines.slice(0, 2)).toEqual([
      { type: 'credit', periodStart: '2026-04-01', periodEnd: '2026-05-01', dueDate: '2026-04-01', amount: -2900 },
      { type: 'premium', periodStart: '2026-04-01', periodEnd: '2026-05-01', dueDate: '2026-04-01', amount: 4200 },
    ]);
    expect(lines.at(-1)).toEqual({
      type: 'premium',
      periodStart: '2026-12-01',
      periodEnd: '2027-01-01',
      dueDate: '2026-12-01',
      amount: 4200,
    });
    expect(sumOfAmounts(basic) + sumOfAmounts(lines)).toBe(46500);
  });

  it('a final partial period at the new price: 2026-01-15..2026-12-31, basic to plus on 2026-11-15; Dec 15..31 is 16/31 of a month: 2900 → 1497, 4200 → 2168; 33397 → 35368', () => {
    const basic = schedule('2026-01-15', '2026-12-31', 2900);
    expect(sumOfAmounts(basic)).toBe(11 * 2900 + 1497);
    const lines = planChangeCharges({
      newSchedule: schedule('2026-01-15', '2026-12-31', 4200),
      ledger: basic,
      effectiveDate: '2026-11-15',
    });
    expect(lines.map(({ type, periodStart, periodEnd, amount }) => [type, periodStart, periodEnd, amount])).toEqual([
      ['credit', '2026-11-15', '2026-12-15', -2900],
      ['premium', '2026-11-15', '2026-12-15', 4200],
      ['credit', '2026-12-15', '2026-12-31', -1497],
      ['premium', '2026-12-15', '2026-12-31', 2168],
    ]);
    expect(sumOfAmounts(basic) + sumOfAmounts(lines)).toBe(35368);
  });

  it('credits what the period nets, earlier changes included: basic → plus on 2026-04-01 → accident-only (1200) on 2026-10-01 credits -4200 per period; 3 × 2900 + 6 × 4200 + 3 × 1200 = 37500', () => {
    const basic = schedule('2026-01-01', '2027-01-01', 2900);
    const first = planChangeCharges({
      newSchedule: schedule('2026-01-01', '2027-01-01', 4200),
      ledger: basic,
      effectiveDate: '2026-04-01',
    });
    const ledger = [...basic, ...first];
    const second = planChangeCharges({ newSchedule: schedule('2026-01-01', '2027-01-01', 1200), ledger, effectiveDate: '2026-10-01' });
    expect(second.filter((line) => line.type === 'credit').map((line) => line.amount)).toEqual([-4200, -4200, -4200]);
    expect(sumOfAmounts(ledger) + sumOfAmounts(second)).toBe(37500);
  });

  it('after a plan change every period from its date nets the new price, and the earlier ones are untouched (any term, prices, billing date)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 60 * 31 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.nat(),
        (startOffset, length, oldPrice, newPrice, pick) => {
          const start = addDays('2024-01-01', startOffset);
          const end = addDays(start, length);
          const old = schedule(start, end, oldPrice);
          const fresh = schedule(start, end, newPrice);
          const on = old[pick % old.length].periodStart;
          const lines = planChangeCharges({ newSchedule: fresh, ledger: old, effectiveDate: on });
          const ledger = [...old, ...lines];
          for (const [index, period] of old.entries()) {
            expect(net(ledger, period)).toBe(period.periodStart >= on ? fresh[index].amount : period.amount);
          }
        },
      ),
    );
  });
});

describe('the fields of a change', () => {
  const policy = {
    petName: 'Biscuit',
    petDOB: null,
    ownerFirstname: 'Rosa',
    ownerLastname: 'Diaz',
    ownerDOB: null,
    coverageSlug: 'basic',
    coverage: { slug: 'basic' },
  };

  it('keeps only the fields that differ, with coverage travelling with its slug', () => {
    expect(fieldChanges(policy, { petName: 'Biscuit', ownerLastname: 'Park', coverageSlug: 'plus', coverage: { slug: 'plus' } })).toEqual({
      ownerLastname: { from: 'Diaz', to: 'Park' },
      coverageSlug: { from: 'basic', to: 'plus' },
      coverage: { from: { slug: 'basic' }, to: { slug: 'plus' } },
    });
    expect(fieldChanges(policy, { coverageSlug: 'basic', coverage: { slug: 'basic', monthlyPremium: 1 } })).toEqual({});
  });

  it('applies changes in order, the latest naming a field winning, each from its date; other transactions change no field', () => {
    const posted = (kind: PostedTransaction['kind'], effectiveDate: string, changes: PostedTransaction['changes']): PostedTransaction => ({
      id: `${kind}-${effectiveDate}`,
      kind,
      effectiveDate,
      changes,
      createdAt: '2026-01-01T00:00:00.000Z',
      charges: [],
    });
    const state = fold(
      { number: 1, effectiveDate: '2026-01-01', expirationDate: '2027-01-01', fields: policy as unknown as PolicyFields },
      [
        posted('issuance', '2026-01-01', {}),
        posted('change', '2026-02-01', { petName: { from: 'Biscuit', to: 'A' }, ownerDOB: { from: null, to: '1990-01-01' } }),
        posted('cancellation', '2026-03-01', { cancellation: { from: null, to: { reason: 'other', method: 'pro_rata' } } }),
        posted('reinstatement', '2026-03-01', { cancellation: { from: {}, to: null } }),
        posted('change', '2026-04-01', { petName: { from: 'A', to: 'B' } }),
      ],
    );
    expect(latestFields(state)).toEqual({ ...policy, petName: 'B', ownerDOB: '1990-01-01' });
    expect(fieldsOn(state, '2026-01-31')).toEqual(policy);
    expect(fieldsOn(state, '2026-03-31')).toEqual({ ...policy, petName: 'A', ownerDOB: '1990-01-01' });
    expect(fieldsOn(state, '2026-04-01')).toEqual(latestFields(state));
  });

  it('knows a billing date: the start of a schedule period, nothing else', () => {
    const periods = schedule('2026-01-31', '2026-06-01', 100);
    expect(isBillingDate(periods, '2026-02-28')).toBe(true);
    expect(isBillingDate(periods, '2026-03-31')).toBe(true);
    expect(isBillingDate(periods, '2026-03-01')).toBe(false);
    expect(isBillingDate(periods, '2026-06-01')).toBe(false);
  });
});
