import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ERROR_STATUS, ServiceError } from '../../src/errors/errors.js';
import { billingOf, duesOf, lapseDateOf, oldestUnpaidDueDate, type Billing, type Due } from '../../src/policies/ledger/billing.js';
import { decideCancellation, type CancelCommand } from '../../src/policies/ledger/decide-cancellation.js';
import { decideChange } from '../../src/policies/ledger/decide-change.js';
import { decidePayment } from '../../src/policies/ledger/decide-payment.js';
import type { Decision } from '../../src/policies/ledger/decision.js';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { apply, applyPayment, fold, stateRow, type PolicyFields, type PolicyState } from '../../src/policies/ledger/state.js';
import { addDays } from '../../src/values/calendar-date.js';

/**
 * Contract section 19 worked by hand: its worked example through the real decide functions and
 * the fold (a state built as ledger-histories.test.ts builds one), then the summary's edges (the
 * grace period, a due day whose charges sum to 0, the order of the statuses) and the lapse date.
 * test/unit/ledger-histories.test.ts checks the same functions against a model on random histories.
 */

/** The defaults: BILLING_GRACE_DAYS 15, BILLING_LAPSE_DAYS 0 (off). */
const RULES = loadConfig({}).policyRules;
const GRACE = RULES.billingGraceDays;

const PLUS = {
  slug: 'accident-illness-plus',
  name: 'Accident & Illness Plus',
  deductible: 25000,
  reimbursementRate: 0.9,
  annualLimit: 1500000,
  monthlyPremium: 4200,
  currency: 'USD',
};

/** A policy as its issuance leaves it: section 5's schedule, folded (state.ts), nothing paid. */
function issued(effectiveDate: string, expirationDate: string): PolicyState {
  const charges = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: PLUS.monthlyPremium, currency: 'USD' }).map(
    (charge, index) => ({ ...charge, id: `c${index}`, reverses: null }),
  );
  const fields = {
    petName: 'Biscuit',
    petDOB: null,
    ownerFirstname: 'Rosa',
    ownerLastname: 'Diaz',
    ownerDOB: null,
    coverageSlug: PLUS.slug,
    coverage: PLUS,
  } as unknown as PolicyFields;
  return fold({ number: 1, effectiveDate, expirationDate, fields }, [
    { id: 't0', kind: 'issuance', effectiveDate, changes: {}, createdAt: '2025-12-01T00:00:00.000Z', charges },
  ]);
}

/** A decided transaction written as the ledger's writer writes it: its charges numbered on, then folded. */
function posted(state: PolicyState, decision: Decision): PolicyState {
  const next = state.charges.length;
  return apply(state, {
    id: `t${state.version}`,
    kind: decision.kind,
    effectiveDate: decision.effectiveDate,
    changes: decision.changes,
    createdAt: '2026-01-01T00:00:00.000Z',
    charges: decision.charges.map((charge, index) => ({
      ...charge,
      id: `c${next + index}`,
      currency: 'USD',
      reverses: charge.reverses ?? null,
    })),
  });
}

function cancelled(state: PolicyState, command: CancelCommand, today: string): PolicyState {
  return posted(state, decideCancellation(state, command, { today, rules: RULES }));
}

/** A payment or a refund recorded on `today` (no date sent), as record-payment.ts posts it: decidePayment, then applyPayment. */
function recorded(state: PolicyState, kind: 'payment' | 'refund', amount: number, today: string): PolicyState {
  const { payment } = decidePayment(state, { kind, amount, reference: `provider-${state.version}`, date: null }, { today, rules: RULES });
  return applyPayment(state, payment);
}

/** The summary on `today` from what the state stores for it (its dues and paid). */
function billingOn(state: PolicyState, today: string, graceDays = GRACE): Billing {
  return billingOf({ dues: duesOf(state.charges), paid: state.paid }, today, graceDays);
}

/** What a refused step throws: its code and the HTTP status that code answers. */
function refusal(step: () => unknown): { code: string; status: number } {
  try {
    step();
  } catch (error) {
    if (error instanceof ServiceError) return { code: error.code, status: ERROR_STATUS[error.code] };
    throw error;
  }
  throw new Error('the step was not refused');
}

/** Dues from `[dueDate, amount]` charges, as duesOf sums them. */
const duesFrom = (charges: [string, number][]): Due[] => duesOf(charges.map(([dueDate, amount]) => ({ dueDate, amount })));

const JUNE_TO_DECEMBER = ['06', '07', '08', '09', '10', '11', '12'];

describe("section 19's worked example: accident-illness-plus from 2026-01-01, 12 x 4,200", () => {
  const paidFiveMonths = () =>
    ['01', '02', '03', '04', '05'].reduce(
      (state, month) => recorded(state, 'payment', 4200, `2026-${month}-01`),
      issued('2026-01-01', '2027-01-01'),
    );
  /** The cancellation decided on 2026-05-10, effective that day, and the state it leaves. */
  const cancellation = () =>
    decideCancellation(paidFiveMonths(), { effectiveDate: '2026-05-10', reason: 'underwriting' }, { today: '2026-05-10', rules: RULES });
  const afterCancel = () => posted(paidFiveMonths(), cancellation());

  it('five payments of 4,200 on the 1st of January to May: each month settled on its day, June owed next', () => {
    let state = issued('2026-01-01', '2027-01-01');
    for (const month of ['01', '02', '03', '04', '05']) {
      const today = `2026-${month}-01`;
      expect(billingOn(state, today).status, `before paying on ${today}`).toBe('due');
      state = recorded(state, 'payment', 4200, today);
      expect(billingOn(state, today), today).toMatchObject({ balance: 0, pastDue: 0, status: 'settled', nextDueAmount: 4200 });
    }
    expect(billingOn(state, '2026-05-01')).toEqual({
      billed: 21000,
      paid: 21000,
      balance: 0,
      pastDue: 0,
      status: 'settled',
      nextDueDate: '2026-06-01',
      nextDueAmount: 4200,
    });
    // Issuance and five payments: a payment counts in the version (section 14, "Versions").
    expect(state.version).toBe(6);
    expect(stateRow(state, { policyId: 'p', paymentId: 'x' })).toMatchObject({ paid: 21000, unpaidFrom: '2026-06-01' });
  });

  it('cancelled (underwriting, so pro_rata) effective 2026-05-10: -2,981 for May (4,200 x 22 / 31) and 7 x -4,200', () => {
    const { changes, charges } = cancellation();
    expect(changes.cancellation.to).toEqual({ effectiveDate: '2026-05-10', reason: 'underwriting', method: 'pro_rata' });
    expect(charges.map(({ type, periodStart, periodEnd, dueDate, amount }) => ({ type, periodStart, periodEnd, dueDate, amount }))).toEqual(
      [
        { type: 'credit', periodStart: '2026-05-10', periodEnd: '2026-06-01', dueDate: '2026-05-10', amount: -2981 },
        ...JUNE_TO_DECEMBER.map((month, index) => ({
          type: 'credit',
          periodStart: `2026-${month}-01`,
          periodEnd: index < 6 ? `2026-${JUNE_TO_DECEMBER[index + 1]}-01` : '2027-01-01',
          dueDate: `2026-${month}-01`,
          amount: -4200,
        })),
      ],
    );
  });

  it('as of 2026-05-10: billed 18,019, paid 21,000, balance -2,981, status credit, nextDueDate null', () => {
    expect(billingOn(afterCancel(), '2026-05-10')).toEqual({
      billed: 18019,
      paid: 21000,
      balance: -2981,
      pastDue: 0,
      status: 'credit',
      // June to December: each day's premium and credit sum to 0, so none is a next due date.
      nextDueDate: null,
      nextDueAmount: null,
    });
    expect(stateRow(afterCancel(), { policyId: 'p', transactionId: 't6' })).toMatchObject({
      dues: [
        ['2026-01-01', 4200],
        ['2026-02-01', 4200],
        ['2026-03-01', 4200],
        ['2026-04-01', 4200],
        ['2026-05-01', 4200],
        ['2026-05-10', -2981],
      ],
      paid: 21000,
      unpaidFrom: null,
    });
  });

  it('a refund of 2,981 is allowed and makes it settled', () => {
    const refunded = recorded(afterCancel(), 'refund', 2981, '2026-05-10');
    expect(billingOn(refunded, '2026-05-10')).toEqual({
      billed: 18019,
      paid: 18019,
      balance: 0,
      pastDue: 0,
      status: 'settled',
      nextDueDate: null,
      nextDueAmount: null,
    });
    expect(refunded.version).toBe(8);
    // Nothing more to refund: even a cent is refused.
    expect(refusal(() => recorded(refunded, 'refund', 1, '2026-05-10'))).toEqual({ code: 'INVALID_STATE', status: 409 });
  });

  it('a refund of 2,982 is refused: 409 INVALID_STATE', () => {
    expect(refusal(() => recorded(afterCancel(), 'refund', 2982, '2026-05-10'))).toEqual({ code: 'INVALID_STATE', status: 409 });
  });

  it('before the cancellation there is no credit to refund; a payment is accepted in every status, even cancelled', () => {
    expect(refusal(() => recorded(paidFiveMonths(), 'refund', 1, '2026-05-10'))).toEqual({ code: 'INVALID_STATE', status: 409 });
    expect(billingOn(recorded(afterCancel(), 'payment', 100, '2026-06-01'), '2026-06-01')).toMatchObject({ paid: 21100, balance: -3081 });
  });
});

describe('a payment or a refund as decided', () => {
  it('keeps the date sent (receivedOn, paidOn), else today; its event names its kind', () => {
    const state = issued('2026-01-01', '2027-01-01');
    const context = { today: '2026-02-10', rules: RULES };
    expect(decidePayment(state, { kind: 'payment', amount: 4200, reference: 'a', date: '2026-02-01' }, context)).toEqual({
      payment: { kind: 'payment', amount: 4200, reference: 'a', date: '2026-02-01' },
      event: 'policy.payment_recorded',
    });
    expect(decidePayment(state, { kind: 'payment', amount: 4200, reference: 'b', date: null }, context).payment.date).toBe('2026-02-10');
    const credited = recorded(state, 'payment', 10_000, '2026-02-10');
    expect(decidePayment(credited, { kind: 'refund', amount: 1600, reference: 'c', date: null }, context)).toEqual({
      payment: { kind: 'refund', amount: 1600, reference: 'c', date: '2026-02-10' },
      event: 'policy.refund_recorded',
    });
  });
});

describe('pastDue and the grace period (BILLING_GRACE_DAYS, default 15)', () => {
  const unpaid = issued('2026-01-01', '2027-01-01');

  it('a charge due exactly grace days ago is past due; one day less, it is only due', () => {
    expect(billingOn(unpaid, addDays('2026-01-01', GRACE - 1))).toMatchObject({ billed: 4200, balance: 4200, pastDue: 0, status: 'due' });
    expect(billingOn(unpaid, addDays('2026-01-01', GRACE))).toMatchObject({
      billed: 4200,
      balance: 4200,
      pastDue: 4200,
      status: 'past_due',
    });
  });

  it('pastDue is what is unpaid of the charges due on or before today minus grace days, never below 0', () => {
    const partly = recorded(unpaid, 'payment', 4199, '2026-01-16');
    expect(billingOn(partly, '2026-01-16')).toMatchObject({ pastDue: 1, status: 'past_due' });
    // February's charge is billed on its day but past due only 15 days later.
    expect(billingOn(partly, '2026-02-15')).toMatchObject({ billed: 8400, balance: 4201, pastDue: 1 });
    expect(billingOn(partly, '2026-02-16')).toMatchObject({ billed: 8400, balance: 4201, pastDue: 4201 });
    expect(billingOn(recorded(unpaid, 'payment', 5000, '2026-01-16'), '2026-01-16')).toMatchObject({ pastDue: 0, balance: -800 });
  });

  it('with no grace at all, a charge is past due on its due date; with a longer one, later', () => {
    expect(billingOn(unpaid, '2026-01-01', 0)).toMatchObject({ pastDue: 4200, status: 'past_due' });
    expect(billingOn(unpaid, '2025-12-31', 0)).toMatchObject({ billed: 0, pastDue: 0, status: 'settled', nextDueDate: '2026-01-01' });
    expect(billingOn(unpaid, '2026-01-30', 30)).toMatchObject({ pastDue: 0, status: 'due' });
    expect(billingOn(unpaid, '2026-01-31', 30)).toMatchObject({ pastDue: 4200, status: 'past_due' });
  });
});

describe('nextDueDate: the first date after today whose charges sum to something other than 0', () => {
  it('skips a day whose charges cancel out, to the next day that owes', () => {
    const dues = duesFrom([
      ['2026-01-01', 4200],
      ['2026-02-01', 4200],
      ['2026-02-01', -4200],
      ['2026-03-01', 4200],
    ]);
    // duesOf leaves the day summing to 0 out; billingOf never sees it.
    expect(dues).toEqual([
      ['2026-01-01', 4200],
      ['2026-03-01', 4200],
    ]);
    expect(billingOf({ dues, paid: 0 }, '2026-01-15', GRACE)).toMatchObject({ nextDueDate: '2026-03-01', nextDueAmount: 4200 });
  });

  it('is after today, not on it: on a due date the next one is a month on', () => {
    const state = issued('2026-01-01', '2027-01-01');
    expect(billingOn(state, '2026-01-31')).toMatchObject({ billed: 4200, nextDueDate: '2026-02-01', nextDueAmount: 4200 });
    expect(billingOn(state, '2026-02-01')).toMatchObject({ billed: 8400, nextDueDate: '2026-03-01', nextDueAmount: 4200 });
    expect(billingOn(state, '2026-12-01')).toMatchObject({ billed: 50400, nextDueDate: null, nextDueAmount: null });
  });

  it('may be a credit: a cancellation recorded ahead of its date is due then as a negative amount, and nothing after it', () => {
    const state = cancelled(issued('2026-01-01', '2027-01-01'), { effectiveDate: '2026-05-10', reason: 'underwriting' }, '2026-05-05');
    expect(billingOn(state, '2026-05-05')).toMatchObject({ billed: 21000, nextDueDate: '2026-05-10', nextDueAmount: -2981 });
    expect(billingOn(state, '2026-05-10')).toMatchObject({ billed: 18019, nextDueDate: null, nextDueAmount: null });
  });

  it("after a plan change the next amount is the new plan's price (the credit and the new premium share the day)", () => {
    const basic = { ...PLUS, slug: 'accident-illness-basic', name: 'Accident & Illness Basic', monthlyPremium: 2900 };
    const state = issued('2026-01-01', '2027-01-01');
    const decision = decideChange(
      state,
      { effectiveDate: '2026-04-01', coverageSlug: basic.slug, plan: basic },
      { today: '2026-03-15', rules: RULES },
    );
    expect(billingOn(posted(state, decision), '2026-03-15')).toMatchObject({
      billed: 12600,
      nextDueDate: '2026-04-01',
      nextDueAmount: 2900,
    });
  });
});

describe('status: credit, else past_due, else due, else settled', () => {
  // A free-look cancellation of an unpaid policy: January's premium (due 2026-01-01) is credited
  // on 2026-01-11, inside the grace window, so for a while nothing is owed (balance 0) while the
  // January charge still counts as past due: the rule's order decides.
  const freeLooked = () =>
    cancelled(issued('2026-01-01', '2027-01-01'), { effectiveDate: '2026-01-11', reason: 'free_look' }, '2026-01-11');

  it('past_due beats settled: balance 0 but pastDue above 0', () => {
    expect(billingOn(freeLooked(), '2026-01-16')).toMatchObject({ billed: 0, balance: 0, pastDue: 4200, status: 'past_due' });
  });

  it('credit beats past_due: a cent paid makes the balance negative while pastDue stays above 0', () => {
    const state = recorded(freeLooked(), 'payment', 1, '2026-01-16');
    expect(billingOn(state, '2026-01-16')).toMatchObject({ balance: -1, pastDue: 4199, status: 'credit' });
    // And that cent is refundable: the credit balance is what the refund rule reads.
    expect(billingOn(recorded(state, 'refund', 1, '2026-01-16'), '2026-01-16')).toMatchObject({ balance: 0, status: 'past_due' });
  });

  it('once the credit falls out of the grace window too, nothing is past due', () => {
    expect(billingOn(freeLooked(), addDays('2026-01-11', GRACE))).toMatchObject({ balance: 0, pastDue: 0, status: 'settled' });
  });

  it('past_due beats due, due beats settled', () => {
    const dues = duesFrom([
      ['2026-01-01', 4200],
      ['2026-02-01', 4200],
    ]);
    const status = (paid: number, today: string) => billingOf({ dues, paid }, today, GRACE).status;
    expect(status(0, '2026-02-10')).toBe('past_due');
    expect(status(4200, '2026-02-10')).toBe('due');
    expect(status(8400, '2026-02-10')).toBe('settled');
    expect(status(8401, '2026-02-10')).toBe('credit');
    expect(status(8400, '2026-01-10')).toBe('credit');
  });
});

describe('lapseDateOf (BILLING_LAPSE_DAYS; the sweep cancels for non_payment on it)', () => {
  const unpaid = issued('2026-01-01', '2027-01-01');
  const basis = (state: PolicyState) => ({ dues: duesOf(state.charges), paid: state.paid });
  const policy = (state: PolicyState) => ({
    expirationDate: state.policy.expirationDate,
    latestEffectiveDate: state.latest!.effectiveDate,
    cancelled: state.cancellation !== null,
  });
  const lapse = (state: PolicyState, today: string, lapseDays: number) => lapseDateOf(basis(state), policy(state), today, lapseDays);

  it('is off when BILLING_LAPSE_DAYS is 0 (the default), however long unpaid', () => {
    expect(RULES.billingLapseDays).toBe(0);
    expect(lapse(unpaid, '2026-12-31', 0)).toBeNull();
  });

  it('is u + BILLING_LAPSE_DAYS, from that day on: u the oldest unpaid due date', () => {
    expect(oldestUnpaidDueDate(basis(unpaid))).toBe('2026-01-01');
    expect(lapse(unpaid, '2026-01-30', 30)).toBeNull();
    expect(lapse(unpaid, '2026-01-31', 30)).toBe('2026-01-31');
    expect(lapse(unpaid, '2026-06-01', 30)).toBe('2026-01-31');
    // Three months paid: u is April's due date.
    const paid = recorded(unpaid, 'payment', 3 * 4200, '2026-01-01');
    expect(oldestUnpaidDueDate(basis(paid))).toBe('2026-04-01');
    expect(lapse(paid, '2026-05-01', 30)).toBe('2026-05-01');
    expect(lapse(paid, '2026-04-30', 30)).toBeNull();
  });

  it("is the latest transaction's effectiveDate when that is later: a cancellation may not be dated before it", () => {
    const basic = { ...PLUS, slug: 'accident-illness-basic', name: 'Accident & Illness Basic', monthlyPremium: 2900 };
    const changed = posted(
      unpaid,
      decideChange(unpaid, { effectiveDate: '2026-03-01', coverageSlug: basic.slug, plan: basic }, { today: '2026-01-20', rules: RULES }),
    );
    expect(lapse(changed, '2026-02-15', 30)).toBeNull();
    expect(lapse(changed, '2026-03-01', 30)).toBe('2026-03-01');
    // The sweep's cancellation on it is one the rules accept: non_payment, so pro_rata.
    const swept = decideCancellation(
      changed,
      { effectiveDate: '2026-03-01', reason: 'non_payment' },
      { today: '2026-03-01', rules: RULES },
    );
    expect(swept.changes.cancellation.to).toMatchObject({ effectiveDate: '2026-03-01', method: 'pro_rata' });
  });

  it('is not on or after expirationDate', () => {
    // Eleven months paid: u is 2026-12-01.
    const paid = recorded(unpaid, 'payment', 11 * 4200, '2026-01-01');
    expect(lapse(paid, '2026-12-31', 30)).toBe('2026-12-31');
    // Only the lapse date must be before expirationDate, not today: a sweep that comes late still finds it.
    expect(lapse(paid, '2027-01-02', 30)).toBe('2026-12-31');
    expect(lapse(paid, '2027-01-01', 31)).toBeNull();
    expect(lapse(paid, '2027-01-20', 40)).toBeNull();
  });

  it('is none with a cancellation recorded (in effect or ahead), or nothing unpaid', () => {
    const scheduled = cancelled(unpaid, { effectiveDate: '2026-06-01', reason: 'insured_request' }, '2026-02-01');
    expect(lapse(scheduled, '2026-03-01', 30)).toBeNull();
    const paidUp = recorded(unpaid, 'payment', 12 * 4200, '2026-01-01');
    expect(oldestUnpaidDueDate(basis(paidUp))).toBeNull();
    expect(lapse(paidUp, '2026-12-31', 1)).toBeNull();
  });
});

describe('the summary on random ledgers: identities section 19 implies', () => {
  const charges = fc.array(
    fc.tuple(
      fc.integer({ min: 0, max: 120 }).map((day) => addDays('2026-01-01', day)),
      fc.oneof(fc.integer({ min: 1, max: 9000 }), fc.integer({ min: -9000, max: -1 })),
    ),
    { maxLength: 20 },
  );
  const input = fc.record({
    charges,
    paid: fc.integer({ min: 0, max: 40_000 }),
    today: fc.integer({ min: -5, max: 130 }),
    grace: fc.nat(40),
  });

  it('pastDue today is what the balance was grace days ago, at least 0; the next due date adds exactly its amount to billed', () => {
    fc.assert(
      fc.property(input, ({ charges, paid, today: day, grace }) => {
        const dues = duesFrom(charges);
        const today = addDays('2026-01-01', day);
        const now = billingOf({ dues, paid }, today, grace);
        expect(now.pastDue).toBe(Math.max(0, billingOf({ dues, paid }, addDays(today, -grace), grace).balance));
        expect(now.balance).toBe(now.billed - paid);
        if (now.nextDueDate === null) {
          expect(billingOf({ dues, paid }, '2027-01-01', grace).billed).toBe(now.billed);
        } else {
          expect(now.nextDueAmount).not.toBe(0);
          // Nothing is billed between today and then: every day in between sums to 0.
          expect(billingOf({ dues, paid }, addDays(now.nextDueDate, -1), grace).billed).toBe(now.billed);
          expect(billingOf({ dues, paid }, now.nextDueDate, grace).billed).toBe(now.billed + (now.nextDueAmount as number));
        }
      }),
      { numRuns: 500 },
    );
  });
});
