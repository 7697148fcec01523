import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cancellationCharges,
  reversalLines,
  withinFreeLook,
  type CancellationMethod,
} from '../../src/policies/ledger/cancellation-charges.js';
import { MAX_LEDGER_CHARGES, mostCancellationLines, stepFits } from '../../src/policies/ledger/ledger-room.js';
import { planChangeCharges } from '../../src/policies/ledger/policy-change.js';
import { MAX_CHARGES, premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { addDays, addMonthsClamped, compareDates, daysBetween } from '../../src/values/calendar-date.js';

/**
 * Contract section 14, "Bounded ledgers", as the pure rule (src/policies/ledger/ledger-room.ts): the
 * cap is never passed, a reinstatement is never refused, a cancellation only when it and its
 * reinstatement do not fit, and a plan change only when a cancellation from its date and that
 * cancellation's reinstatement would not fit after it. Line counts come from the money
 * functions themselves (cancellationCharges, reversalLines, planChangeCharges).
 */

const FREE_LOOK = 15;
const METHODS: CancellationMethod[] = ['flat', 'short_rate', 'pro_rata'];

/** The lines a cancellation on `date` writes with `method` (flat only within the free look, as the service allows it). */
function cancellationLines(schedule: ReturnType<typeof premiumSchedule>, method: CancellationMethod, date: string, expirationDate: string) {
  return cancellationCharges({ schedule, ledger: schedule, effectiveDate: date, expirationDate, method, shortRatePercent: 10 }).lines;
}

describe('mostCancellationLines', () => {
  it('is the most lines any cancellation dated on or after the date writes, and one of them writes that many', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 27 }),
        fc.integer({ min: 0, max: 1900 }),
        fc.integer({ min: 0, max: 40 }),
        (months, extraDays, fromOffset, freeLookDays) => {
          const effectiveDate = '2026-01-31';
          const expirationDate = addDays(addMonthsClamped(effectiveDate, months), extraDays);
          const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: 4200, currency: 'USD' });
          const term = daysBetween(effectiveDate, expirationDate);
          const from = addDays(effectiveDate, fromOffset % term);
          const most = mostCancellationLines(schedule, effectiveDate, from, freeLookDays);
          let seen = 0;
          for (let date = from; compareDates(date, expirationDate) < 0; date = addDays(date, 9)) {
            for (const method of METHODS) {
              if (method === 'flat' && !withinFreeLook(effectiveDate, date, freeLookDays)) continue;
              seen = Math.max(seen, cancellationLines(schedule, method, date, expirationDate).length);
            }
          }
          expect(seen).toBe(most);
        },
      ),
    );
  });

  it('counts a five-year schedule: 61 lines on its first day (60 credits and the fee), 2 in its last month', () => {
    const schedule = premiumSchedule({ effectiveDate: '2026-01-01', expirationDate: '2031-01-01', monthlyPremium: 4200, currency: 'USD' });
    expect(schedule).toHaveLength(60);
    expect(mostCancellationLines(schedule, '2026-01-01', '2026-01-01', FREE_LOOK)).toBe(61);
    expect(mostCancellationLines(schedule, '2026-01-01', '2030-12-15', FREE_LOOK)).toBe(2);
    // The longest schedule the service writes, with a cancellation and its reinstatement, is POLICY_MAX_CHARGES's floor.
    expect(MAX_CHARGES + 2 * (MAX_CHARGES + 1)).toBe(185);
  });
});

/** A step a client may try: cancel (with a method), reinstate, or change the plan; each a number of days after the latest. */
const step = fc.oneof(
  fc.record({ kind: fc.constant('cancel' as const), method: fc.constantFrom(...METHODS), days: fc.integer({ min: 0, max: 120 }) }),
  fc.record({ kind: fc.constant('reinstate' as const) }),
  fc.record({ kind: fc.constant('change' as const), periods: fc.integer({ min: 0, max: 59 }) }),
);

describe('a policy driven by any steps under the cap', () => {
  it('never passes the cap, never refuses a reinstatement, and refuses only what would leave no room for a cancellation and its reinstatement', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 185, max: MAX_LEDGER_CHARGES }),
        fc.array(step, { minLength: 1, maxLength: 80 }),
        (months, maxCharges, steps) => {
          const effectiveDate = '2026-01-01';
          const expirationDate = addMonthsClamped(effectiveDate, months);
          const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: 4200, currency: 'USD' });
          let count = schedule.length;
          let latest = effectiveDate;
          let cancellation: ReturnType<typeof cancellationLines> | null = null;
          /** Any cancellation from `date` on fits with its reinstatement: the promise every active policy keeps unless cycles spent it. */
          const roomKept = (date: string) => count + 2 * mostCancellationLines(schedule, effectiveDate, date, FREE_LOOK) <= maxCharges;
          expect(roomKept(effectiveDate)).toBe(true);
          // Whether the room has been spent by cancel-and-reinstate cycles (then only cancellations may be refused).
          let spentByCycles = false;

          for (const next of steps) {
            if (next.kind === 'reinstate') {
              if (!cancellation) continue;
              const lines = reversalLines(cancellation.map((line, index) => ({ ...line, id: String(index) })));
              expect(stepFits(count, lines.length, { type: 'reinstatement' }, maxCharges)).toBe(true);
              count += lines.length;
              cancellation = null;
              if (!roomKept(latest)) spentByCycles = true;
            } else if (next.kind === 'cancel') {
              if (cancellation) continue;
              const date = addDays(latest, next.days);
              if (compareDates(date, expirationDate) >= 0) continue;
              if (next.method === 'flat' && !withinFreeLook(effectiveDate, date, FREE_LOOK)) continue;
              const lines = cancellationLines(schedule, next.method, date, expirationDate);
              const fits = stepFits(count, lines.length, { type: 'cancellation' }, maxCharges);
              // Refused exactly when it and its reinstatement do not fit.
              expect(fits).toBe(count + 2 * lines.length <= maxCharges);
              // While the room was kept, every cancellation is accepted.
              if (!spentByCycles) expect(fits).toBe(true);
              if (!fits) continue;
              count += lines.length;
              cancellation = lines;
              latest = date;
            } else {
              if (cancellation) continue;
              const date = schedule[Math.min(next.periods, schedule.length - 1)].periodStart;
              if (compareDates(date, latest) < 0) continue;
              const lines = planChangeCharges({ newSchedule: schedule, ledger: schedule, effectiveDate: date });
              const fits = stepFits(
                count,
                lines.length,
                { type: 'other', cancellationAfter: mostCancellationLines(schedule, effectiveDate, date, FREE_LOOK) },
                maxCharges,
              );
              const before = count;
              if (fits) {
                count += lines.length;
                latest = date;
                // An accepted change leaves room for any cancellation from its date and its reinstatement.
                expect(roomKept(date)).toBe(true);
              } else {
                // Refused only when it would leave no such room.
                expect(before + lines.length + 2 * mostCancellationLines(schedule, effectiveDate, date, FREE_LOOK)).toBeGreaterThan(
                  maxCharges,
                );
              }
            }
            expect(count).toBeLessThanOrEqual(maxCharges);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("settles the review's case (L1): after 8 cycles of 56 credits, a cancellation of 44 is refused while active, not stranded; one that fits is reinstatable", () => {
    const expirationDate = '2031-01-01';
    const schedule = premiumSchedule({ effectiveDate: '2026-01-01', expirationDate, monthlyPremium: 4200, currency: 'USD' });
    const lines = (date: string) => cancellationLines(schedule, 'pro_rata', date, expirationDate).length;
    expect([lines('2026-05-15'), lines('2027-05-15'), lines('2029-10-15')]).toEqual([56, 44, 15]);
    let count = schedule.length;
    for (let cycle = 0; cycle < 8; cycle++) {
      expect(stepFits(count, 56, { type: 'cancellation' }, MAX_LEDGER_CHARGES)).toBe(true);
      expect(stepFits(count + 56, 56, { type: 'reinstatement' }, MAX_LEDGER_CHARGES)).toBe(true);
      count += 112;
    }
    expect(count).toBe(956);
    // The review: the cancellation was written (1,000) and its reinstatement refused. Now the
    // cancellation is refused, the policy active and whole.
    expect(stepFits(count, 44, { type: 'cancellation' }, MAX_LEDGER_CHARGES)).toBe(false);
    // Later in the term a cancellation fits with its reinstatement: 956 + 15 + 15 = 986.
    expect(stepFits(count, 15, { type: 'cancellation' }, MAX_LEDGER_CHARGES)).toBe(true);
    expect(stepFits(count + 15, 15, { type: 'reinstatement' }, MAX_LEDGER_CHARGES)).toBe(true);
    // A plan change there would leave no room for a cancellation from its date (16 lines) and its reinstatement: refused.
    const planDate = '2029-10-01';
    expect(mostCancellationLines(schedule, '2026-01-01', planDate, FREE_LOOK)).toBe(16);
    expect(stepFits(count, 30, { type: 'other', cancellationAfter: 16 }, MAX_LEDGER_CHARGES)).toBe(false);
    // A change that writes no charges takes no room.
    expect(stepFits(count, 0, { type: 'other', cancellationAfter: 61 }, MAX_LEDGER_CHARGES)).toBe(true);
  });
});
