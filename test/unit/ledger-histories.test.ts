import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { PolicyRules } from '../../src/config.js';
import { ServiceError } from '../../src/errors/errors.js';
import { billingOf, duesOf, type Billing, type Due } from '../../src/policies/ledger/billing.js';
import { stepFits } from '../../src/policies/ledger/ledger-room.js';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { decideCancellation } from '../../src/policies/ledger/decide-cancellation.js';
import { decideChange } from '../../src/policies/ledger/decide-change.js';
import { decidePayment, type PaymentDecision } from '../../src/policies/ledger/decide-payment.js';
import { decideReinstatement } from '../../src/policies/ledger/decide-reinstatement.js';
import { decideRenewal, successorTerm } from '../../src/policies/ledger/decide-renewal.js';
import type { DecideContext } from '../../src/policies/ledger/decision.js';
import {
  apply,
  applyPayment,
  cancellationRead,
  fieldsOn,
  fold,
  initialState,
  latestFields,
  netOf,
  stateRow,
  statusOn,
  withPayments,
  type PolicyBasis,
  type PolicyFields,
  type PolicyState,
  type PostedTransaction,
} from '../../src/policies/ledger/state.js';

/**
 * Random policy histories run through the ledger core (each kind's `decide`, then `apply`; a
 * payment's or a refund's `decidePayment`, then `applyPayment`), step by step, against a
 * reference model written here from contract sections 5, 14 and 19 only: its dates, its schedule,
 * its money, its billing, its refusals. After every step the fold's fields on each date, the
 * cancellation in force, the status today, `net(P)` of every schedule period, the charges written
 * and their total, the billing summary today, and the stored row equal the model's; a refusal is
 * refused with the model's code (and, for a 400, its paths). Where the contract leaves a detail
 * open, the model says which choice it takes (marked "open:").
 */

// ---------------------------------------------------------------------------------------------
// The model's calendar (contract section 14: dates are YYYY-MM-DD, days(a, b) from a inclusive
// to b exclusive, UTC). Four-digit years: text order is date order.

const DAY = 86_400_000;
const timeOf = (date: string) => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
const dateOf = (time: number) => new Date(time).toISOString().slice(0, 10);
const plusDays = (date: string, count: number) => dateOf(timeOf(date) + count * DAY);
const days = (from: string, to: string) => Math.round((timeOf(to) - timeOf(from)) / DAY);
/** `date` plus `count` calendar months, clamped to that month's last day (section 5). */
function plusMonths(date: string, count: number): string {
  const months = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 + count;
  const year = Math.floor(months / 12);
  const month = months % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return dateOf(Date.UTC(year, month, Math.min(Number(date.slice(8, 10)), last)));
}
const later = (a: string, b: string) => (a > b ? a : b);

/** `amount × numerator ÷ denominator`, "round" half up on the absolute value, sign kept (integers only). */
function rounded(amount: number, numerator: number, denominator: number): number {
  const magnitude = Math.floor((2 * Math.abs(amount) * numerator + denominator) / (2 * denominator));
  return amount < 0 ? -magnitude || 0 : magnitude;
}
const negated = (amount: number) => (amount === 0 ? 0 : -amount);

// ---------------------------------------------------------------------------------------------
// The catalog of section 5 and the settings of section 14 (defaults; the cap drawn per history).

const CATALOG = Object.fromEntries(
  (
    [
      ['accident-only', 'Accident Only', 25000, 0.9, 500000, 1200],
      ['accident-illness-basic', 'Accident & Illness Basic', 50000, 0.8, 500000, 2900],
      ['accident-illness-plus', 'Accident & Illness Plus', 25000, 0.9, 1500000, 4200],
      ['accident-illness-unlimited', 'Accident & Illness Unlimited', 10000, 0.9, null, 6400],
    ] as const
  ).map(([slug, name, deductible, reimbursementRate, annualLimit, monthlyPremium]) => [
    slug,
    { slug, name, deductible, reimbursementRate, annualLimit, monthlyPremium, currency: 'USD' },
  ]),
);
type Plan = (typeof CATALOG)[string];
const SLUGS = Object.keys(CATALOG);
const UNKNOWN_SLUG = 'no-such-plan';

const SETTINGS = {
  freeLookDays: 15,
  shortRatePercent: 10,
  reinstatementDays: 30,
  renewalWindowDays: 60,
  renewalLateDays: 30,
  billingGraceDays: 15,
  billingLapseDays: 0,
  billingSweepSeconds: 3600,
};
/** BILLING_GRACE_DAYS, drawn per history: the default, none, one day (the boundaries), a month. */
const GRACE_DAYS = [15, 15, 0, 1, 30];

// ---------------------------------------------------------------------------------------------
// The model's policy.

interface Line {
  type: 'premium' | 'credit' | 'fee' | 'reversal';
  periodStart: string;
  periodEnd: string;
  dueDate: string;
  amount: number;
  reverses: string | null;
}
interface Period {
  periodStart: string;
  periodEnd: string;
}
type Fields = Record<'petName' | 'petDOB' | 'ownerFirstname' | 'ownerLastname' | 'ownerDOB' | 'coverageSlug', string | null> & {
  coverage: Plan;
};
const CHANGEABLE = ['petName', 'petDOB', 'ownerFirstname', 'ownerLastname', 'ownerDOB', 'coverageSlug'] as const;

interface ModelCancellation {
  effectiveDate: string;
  reason: string;
  method: string;
  credited: number;
  fee: number;
  createdAt: string;
  lines: (Line & { id: string })[];
  /** The sum of the charges before it: what a reinstatement brings them back to. */
  owedBefore: number;
}

interface Model {
  number: number;
  effectiveDate: string;
  expirationDate: string;
  issued: Fields;
  /** Accepted changes in order: each field it sets, from its date on. */
  changes: { date: string; values: Partial<Fields> }[];
  periods: Period[];
  ledger: (Line & { id: string })[];
  cancellation: ModelCancellation | null;
  latestDate: string;
  /** Transactions, payments and refunds (section 14, "Versions"). */
  version: number;
  /** Section 19: payments minus refunds; and each sum on its own, for the refunds' invariant. */
  paid: number;
  payments: number;
  refunds: number;
}

/** Section 5's premium schedule. */
function schedule(effectiveDate: string, expirationDate: string, monthlyPremium: number): Line[] {
  const lines: Line[] = [];
  for (let k = 0; plusMonths(effectiveDate, k) < expirationDate; k++) {
    const periodStart = plusMonths(effectiveDate, k);
    const fullEnd = plusMonths(effectiveDate, k + 1);
    const periodEnd = fullEnd < expirationDate ? fullEnd : expirationDate;
    const amount =
      periodEnd === fullEnd ? monthlyPremium : rounded(monthlyPremium, days(periodStart, periodEnd), days(periodStart, fullEnd));
    lines.push({ type: 'premium', periodStart, periodEnd, dueDate: periodStart, amount, reverses: null });
  }
  return lines;
}

const net = (model: Model, period: Period) =>
  model.ledger.reduce(
    (sum, line) => (line.periodStart === period.periodStart && line.periodEnd === period.periodEnd ? sum + line.amount : sum),
    0,
  );
const total = (model: Model) => model.ledger.reduce((sum, line) => sum + line.amount, 0);

/** "Reads show the fields and the coverage in effect": the issued ones, then each change from its date. */
function fieldsIn(model: Model, date: string | null): Fields {
  const fields = { ...model.issued };
  for (const change of model.changes) if (date === null || change.date <= date) Object.assign(fields, change.values);
  return fields;
}

function status(model: Model, today: string): string {
  // open: a cancellation in effect is reported over expiry (a cancelled policy stays cancelled).
  if (model.cancellation && today >= model.cancellation.effectiveDate) return 'cancelled';
  if (today >= model.expirationDate) return 'expired';
  if (today < model.effectiveDate) return 'pending';
  return 'active';
}

/** The most charges a cancellation dated on or after `date` writes: the running periods and a short-rate fee, or flat within the free look. */
function worstCancellation(model: Model, date: string): number {
  const running = model.periods.filter((period) => period.periodEnd > date).length;
  return Math.max(running + 1, days(model.effectiveDate, date) <= SETTINGS.freeLookDays ? model.periods.length : 0);
}

// ---------------------------------------------------------------------------------------------
// The model's billing (section 19), from its own ledger and what was paid; nothing of
// src/policies/ledger/billing.ts.

/** "The sum of the charges whose dueDate is on or before" `date`. */
const dueBy = (model: Model, date: string) => model.ledger.reduce((sum, line) => (line.dueDate <= date ? sum + line.amount : sum), 0);

/** What the charges due on each day sum to, in date order (days summing to 0 included). */
function dayTotals(model: Model): [string, number][] {
  const byDay = new Map<string, number>();
  for (const line of model.ledger) byDay.set(line.dueDate, (byDay.get(line.dueDate) ?? 0) + line.amount);
  return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1));
}

type BillingStatus = 'credit' | 'past_due' | 'due' | 'settled';

/** Section 19's summary on `today`, word by word (`totals`: the model's dayTotals, when already made). */
function billingIn(model: Model, today: string, graceDays: number, totals = dayTotals(model)) {
  const billed = dueBy(model, today);
  const balance = billed - model.paid;
  const pastDue = Math.max(0, dueBy(model, plusDays(today, -graceDays)) - model.paid);
  // "credit when balance < 0, else past_due when pastDue > 0, else due when balance > 0, else settled".
  let status: BillingStatus = 'settled';
  if (balance < 0) status = 'credit';
  else if (pastDue > 0) status = 'past_due';
  else if (balance > 0) status = 'due';
  // "The first date after today on which the charges due that day sum to something other than 0".
  const next = totals.find(([date, amount]) => date > today && amount !== 0);
  return { billed, paid: model.paid, balance, pastDue, status, nextDueDate: next?.[0] ?? null, nextDueAmount: next?.[1] ?? null };
}

/** "A refund may not exceed the credit balance": `-balance` when it is negative, else nothing. */
const creditIn = (model: Model, today: string) => Math.max(0, model.paid - dueBy(model, today));

/**
 * The oldest unpaid due date `u`: "the earliest date on which the charges due on or before it sum
 * to more than paid". That sum only moves on a due date, so `u` is one (or there is none).
 */
function unpaidFrom(model: Model, totals = dayTotals(model)): string | null {
  let owed = 0;
  for (const [date, amount] of totals) {
    owed += amount;
    if (owed > model.paid) return date;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// The model's steps: a refusal, or the transaction's charges and changes.

type Outcome =
  | { refused: 'BAD_USER_INPUT'; paths: string[] }
  | { refused: 'INVALID_STATE' }
  | { effectiveDate: string; lines: Line[]; changes: Record<string, { from: unknown; to: unknown }>; event: string };

const invalid = { refused: 'INVALID_STATE' } as const;
/** Section 14: in the term, and not before the latest transaction. */
const dateRefused = (model: Model, date: string) => date < model.effectiveDate || date >= model.expirationDate || date < model.latestDate;

type ChangeBody = Partial<Record<(typeof CHANGEABLE)[number], string>> & { effectiveDate: string };

function modelChange(model: Model, body: ChangeBody, today: string, maxCharges: number): Outcome {
  const paths: string[] = [];
  const plan = body.coverageSlug === undefined ? undefined : CATALOG[body.coverageSlug];
  if (body.coverageSlug !== undefined && !plan) paths.push('coverageSlug');
  if (body.petDOB !== undefined && body.petDOB > model.effectiveDate) paths.push('petDOB');
  // open: a body is compared with the values from the latest transaction on, the ones a change
  // on any date it may take (not before the latest) is made against.
  const current = fieldsIn(model, null);
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of CHANGEABLE) {
    const to = field === 'coverageSlug' ? plan?.slug : body[field];
    if (to !== undefined && to !== current[field]) changes[field] = { from: current[field], to };
  }
  if (changes.coverageSlug) {
    changes.coverage = { from: current.coverage, to: plan };
    if (!model.periods.some((period) => period.periodStart === body.effectiveDate)) paths.push('effectiveDate');
  }
  // open: a body that changes nothing names each field it sent.
  if (paths.length === 0 && Object.keys(changes).length === 0) paths.push(...CHANGEABLE.filter((field) => body[field] !== undefined));
  if (paths.length > 0) return { refused: 'BAD_USER_INPUT', paths };
  if (model.cancellation || today >= model.expirationDate || dateRefused(model, body.effectiveDate)) return invalid;
  const lines: Line[] = [];
  if (plan && changes.coverageSlug) {
    const priced = schedule(model.effectiveDate, model.expirationDate, plan.monthlyPremium);
    for (const period of priced) {
      if (period.periodStart < body.effectiveDate) continue;
      const { periodStart, periodEnd } = period;
      lines.push({ type: 'credit', periodStart, periodEnd, dueDate: periodStart, amount: negated(net(model, period)), reverses: null });
      lines.push({ ...period });
    }
  }
  if (lines.length > 0 && model.ledger.length + lines.length + 2 * worstCancellation(model, body.effectiveDate) > maxCharges)
    return invalid;
  return { effectiveDate: body.effectiveDate, lines, changes, event: 'policy.changed' };
}

function modelCancel(model: Model, body: { effectiveDate: string; reason: string }, today: string, maxCharges: number): Outcome {
  const date = body.effectiveDate;
  const method = body.reason === 'free_look' ? 'flat' : body.reason === 'insured_request' ? 'short_rate' : 'pro_rata';
  if (method === 'flat' && days(model.effectiveDate, date) > SETTINGS.freeLookDays) return { refused: 'BAD_USER_INPUT', paths: ['reason'] };
  if (model.cancellation || today >= model.expirationDate || dateRefused(model, date)) return invalid;
  const lines: Line[] = [];
  for (const period of model.periods) {
    // Flat credits every period; with a free look of 15 days no period has ended by then.
    if (method !== 'flat' && period.periodEnd <= date) continue;
    const start = later(date, period.periodStart);
    const owed = net(model, period);
    const credit = method === 'flat' ? owed : rounded(owed, days(start, period.periodEnd), days(period.periodStart, period.periodEnd));
    lines.push({
      type: 'credit',
      periodStart: start,
      periodEnd: period.periodEnd,
      dueDate: start,
      amount: negated(credit),
      reverses: null,
    });
  }
  if (method === 'short_rate') {
    const credited = lines.reduce((sum, line) => sum + line.amount, 0);
    // open: the fee's period is the rest of the term.
    const fee = rounded(Math.abs(credited), SETTINGS.shortRatePercent, 100);
    lines.push({ type: 'fee', periodStart: date, periodEnd: model.expirationDate, dueDate: date, amount: fee, reverses: null });
  }
  // Bounded ledgers: a cancellation keeps room for its reinstatement.
  if (model.ledger.length + 2 * lines.length > maxCharges) return invalid;
  return {
    effectiveDate: date,
    lines,
    changes: { cancellation: { from: null, to: { effectiveDate: date, reason: body.reason, method } } },
    event: 'policy.cancelled',
  };
}

function modelReinstate(model: Model, today: string): Outcome {
  const cancellation = model.cancellation;
  if (!cancellation || cancellation.reason === 'fraud' || days(cancellation.effectiveDate, today) > SETTINGS.reinstatementDays)
    return invalid;
  return {
    // open: dated on the day the cancellation took effect.
    effectiveDate: cancellation.effectiveDate,
    // open: a reversal keeps the period and due date of the charge it undoes.
    lines: cancellation.lines.map(({ periodStart, periodEnd, dueDate, amount, id }) => ({
      type: 'reversal',
      periodStart,
      periodEnd,
      dueDate,
      amount: negated(amount),
      reverses: id,
    })),
    changes: {
      cancellation: {
        from: { effectiveDate: cancellation.effectiveDate, reason: cancellation.reason, method: cancellation.method },
        to: null,
      },
    },
    event: 'policy.reinstated',
  };
}

function modelRenew(model: Model, slug: string | undefined, today: string): Outcome & { plan?: Plan } {
  if (model.cancellation) return invalid;
  if (
    today < plusDays(model.expirationDate, -SETTINGS.renewalWindowDays) ||
    today > plusDays(model.expirationDate, SETTINGS.renewalLateDays)
  ) {
    return invalid;
  }
  const current = fieldsIn(model, null);
  const plan = CATALOG[slug ?? (current.coverageSlug as string)];
  return {
    effectiveDate: model.expirationDate,
    lines: schedule(model.expirationDate, plusMonths(model.expirationDate, 12), plan.monthlyPremium),
    changes: {
      renewalOf: { from: null, to: model.number },
      ...(plan.slug !== current.coverageSlug ? { coverageSlug: { from: current.coverageSlug, to: plan.slug } } : {}),
    },
    event: 'policy.renewed',
    plan,
  };
}

/**
 * Section 19: a payment is accepted in every status (money received is recorded); a refund above
 * the credit balance when it is recorded (today) is 409. Neither is a transaction: no charge, no
 * date rule.
 */
function modelPayment(model: Model, kind: 'payment' | 'refund', amount: number, today: string): typeof invalid | null {
  return kind === 'refund' && amount > creditIn(model, today) ? invalid : null;
}

// ---------------------------------------------------------------------------------------------
// Histories.

type Pick = { anchor: 'latest' | 'billing' | 'term' | 'edge'; offset: number; index: number };
/**
 * An amount of money, like a date, picked against the policy as it stands: some months' premiums,
 * what is owed today (and `months` premiums ahead) or refundable today, give or take a cent.
 */
type AmountPick =
  | { anchor: 'premiums'; count: number }
  | { anchor: 'owed'; months: number; offset: number }
  | { anchor: 'credit'; offset: number }
  | { anchor: 'any'; value: number };
type Command =
  | { kind: 'change'; date: Pick; values: Partial<Record<(typeof CHANGEABLE)[number], string>> }
  | { kind: 'cancel'; date: Pick; reason: string }
  | { kind: 'reinstate' }
  | { kind: 'renew'; slug: string | undefined }
  /** `daysAgo`: the payment's date (`receivedOn`, `paidOn`) that many days before today; null: none sent (today). */
  | { kind: 'payment' | 'refund'; amount: AmountPick; daysAgo: number | null };

const datePick: fc.Arbitrary<Pick> = fc.record({
  anchor: fc.constantFrom('latest', 'latest', 'billing', 'billing', 'term', 'edge'),
  offset: fc.oneof(fc.constant(0), fc.integer({ min: -3, max: 40 })),
  index: fc.nat({ max: 2000 }),
});

const VALUES = {
  petName: ['Biscuit', 'Mochi', 'Pepper'],
  // The last may be after the policy's effectiveDate (400).
  petDOB: ['2019-05-01', '2023-03-03', '2019-05-01', '2023-03-03', '2026-06-15'],
  ownerFirstname: ['Rosa', 'Ana'],
  ownerLastname: ['Diaz', 'Park'],
  ownerDOB: ['1980-02-29', '1990-01-01'],
  coverageSlug: [...SLUGS, ...SLUGS, UNKNOWN_SLUG],
};

const cents = fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 20_000 }) }, { weight: 1, arbitrary: fc.constant(100_000_000) });
const daysAgo = fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 30 }) });

/**
 * Payments: some months' premiums (ahead, or behind), what is owed (exactly, a cent off, or months
 * ahead: a credit to refund), any amount (up to section 19's largest).
 */
const paymentAmount: fc.Arbitrary<AmountPick> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ anchor: fc.constant('premiums' as const), count: fc.integer({ min: 1, max: 6 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      anchor: fc.constant('owed' as const),
      months: fc.constantFrom(0, 1, 3),
      offset: fc.integer({ min: -1, max: 1 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ anchor: fc.constant('any' as const), value: cents }) },
);

/** Refunds: mostly the credit give or take a cent (the refusal's edge), else a month's premium or any amount, often refused. */
const refundAmount: fc.Arbitrary<AmountPick> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ anchor: fc.constant('credit' as const), offset: fc.integer({ min: -2, max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ anchor: fc.constant('premiums' as const), count: fc.constant(1) }) },
  { weight: 1, arbitrary: fc.record({ anchor: fc.constant('any' as const), value: cents }) },
);

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('change' as const),
      date: datePick,
      values: fc
        .record(
          Object.fromEntries(CHANGEABLE.map((field) => [field, fc.constantFrom(...VALUES[field])])) as Record<
            (typeof CHANGEABLE)[number],
            fc.Arbitrary<string>
          >,
          { requiredKeys: [] },
        )
        .filter((values) => Object.keys(values).length > 0),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('cancel' as const),
      date: datePick,
      reason: fc.constantFrom('insured_request', 'non_payment', 'underwriting', 'fraud', 'free_look', 'other'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reinstate' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('renew' as const), slug: fc.option(fc.constantFrom(...SLUGS), { nil: undefined }) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('payment' as const), amount: paymentAmount, daysAgo }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), amount: refundAmount, daysAgo }) },
);

const history = fc.record({
  start: fc.integer({ min: 0, max: 4 * 366 }),
  term: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({ months: fc.integer({ min: 1, max: 24 }), days: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 27 })) }),
    },
    { weight: 2, arbitrary: fc.record({ months: fc.integer({ min: 25, max: 60 }), days: fc.constant(0) }) },
    { weight: 1, arbitrary: fc.record({ months: fc.constant(0), days: fc.integer({ min: 1, max: 40 }) }) },
  ),
  slug: fc.constantFrom(...SLUGS),
  petDOB: fc.constantFrom(null, '2019-05-01'),
  today: fc.integer({ min: -40, max: 400 }),
  graceDays: fc.constantFrom(...GRACE_DAYS),
  // Up to 10 steps (8 before section 19), about a third of them payments and refunds.
  steps: fc.array(fc.record({ command, wait: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 })) }), { minLength: 1, maxLength: 10 }),
  maxCharges: fc.oneof(fc.constant(1000), fc.integer({ min: 185, max: 400 }), fc.integer({ min: 185, max: 260 })),
});

type History = typeof history extends fc.Arbitrary<infer T> ? T : never;

function resolve(model: Model, pick: Pick): string {
  switch (pick.anchor) {
    case 'latest':
      return plusDays(model.latestDate, pick.offset);
    case 'billing':
      return plusDays(model.periods[pick.index % model.periods.length].periodStart, pick.offset % 2);
    case 'term':
      return plusDays(model.effectiveDate, pick.index % days(model.effectiveDate, model.expirationDate));
    case 'edge':
      return [plusDays(model.effectiveDate, -1), model.effectiveDate, plusDays(model.expirationDate, -1), model.expirationDate][
        pick.index % 4
      ];
  }
}

function amountOf(model: Model, pick: AmountPick, today: string): number {
  switch (pick.anchor) {
    case 'premiums':
      return pick.count * fieldsIn(model, today).coverage.monthlyPremium;
    case 'owed':
      return Math.max(1, dueBy(model, today) - model.paid + pick.months * fieldsIn(model, today).coverage.monthlyPremium + pick.offset);
    case 'credit':
      return Math.max(1, creditIn(model, today) + pick.offset);
    case 'any':
      return pick.value;
  }
}

/** A model policy from its first transaction's lines (an issuance, or a renewal's successor): nothing paid yet. */
function opened(number: number, effectiveDate: string, expirationDate: string, issued: Fields, lines: Line[], ids: () => string): Model {
  const ledger = lines.map((line) => ({ ...line, id: ids() }));
  return {
    number,
    effectiveDate,
    expirationDate,
    issued,
    changes: [],
    periods: ledger.map(({ periodStart, periodEnd }) => ({ periodStart, periodEnd })),
    ledger,
    cancellation: null,
    latestDate: effectiveDate,
    version: 1,
    paid: 0,
    payments: 0,
    refunds: 0,
  };
}

const posted = (transaction: Omit<PostedTransaction, 'charges'>, lines: readonly Line[], ids: string[]): PostedTransaction => ({
  ...transaction,
  charges: lines.map((line, index) => ({ ...line, id: ids[index], currency: 'USD' })),
});

/**
 * `expect(actual).toEqual(expected)`, with a fast path: 10,000 histories make about 100,000
 * comparisons, and an `expect` costs more than the step it checks. On a difference, `toEqual`
 * judges (it tells an absent key from an undefined one less strictly) and shows the diff.
 */
function same(actual: unknown, expected: unknown, label: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, label).toEqual(expected);
}

/**
 * The state's dues, made once per ledger (the stored row's, when it was made): a payment leaves
 * the charges as they were, and `duesOf` (dates compared as dates, not text) is much of what a
 * step costs here.
 */
const duesMade = new WeakMap<PolicyState['charges'], readonly Due[]>();
function duesIn(state: PolicyState): readonly Due[] {
  let dues = duesMade.get(state.charges);
  if (!dues) duesMade.set(state.charges, (dues = duesOf(state.charges)));
  return dues;
}

/** Section 19's summary on `date` from the state (its dues and `paid`, as reads take them), next to the model's; returns it. */
function expectBilling(state: PolicyState, model: Model, date: string, graceDays: number, label: string): Billing {
  const billing = billingOf({ dues: duesIn(state), paid: state.paid }, date, graceDays);
  same(billing, billingIn(model, date, graceDays), `${label}: billing on ${date}`);
  return billing;
}

/** What wrote the stored row: a transaction or (section 19) a payment or a refund. */
type Writer = { transactionId: string } | { paymentId: string };

/** What the fold shows, next to what the model says; returns the billing summary today. */
function expectSame(state: PolicyState, model: Model, today: string, graceDays: number, writer: Writer, label: string): Billing {
  const probes = new Set([
    model.effectiveDate,
    plusDays(model.effectiveDate, -1),
    today,
    model.latestDate,
    plusDays(model.expirationDate, -1),
  ]);
  for (const change of model.changes) [plusDays(change.date, -1), change.date].forEach((date) => probes.add(date));
  const row = stateRow(state, { policyId: 'p', ...writer });
  duesMade.set(state.charges, row.dues);
  const totals = dayTotals(model);
  // As reads make it: from the stored row's dues and paid (policy-billing.ts).
  const billing = billingOf(row, today, graceDays);
  const cancellation = model.cancellation && {
    effectiveDate: model.cancellation.effectiveDate,
    reason: model.cancellation.reason,
    method: model.cancellation.method,
    credited: model.cancellation.credited,
    fee: model.cancellation.fee,
    createdAt: model.cancellation.createdAt,
  };
  same(
    {
      version: state.version,
      fieldsOn: [...probes].map((date) => [date, fieldsOn(state, date)]),
      cancellation: cancellationRead(state),
      status: statusOn(state, today),
      schedule: state.schedule,
      net: model.periods.map((period) => [period.periodStart, netOf(state, period)]),
      total: state.charges.reduce((sum, charge) => sum + charge.amount, 0),
      billing,
      row,
    },
    {
      version: model.version,
      fieldsOn: [...probes].map((date) => [date, fieldsIn(model, date)]),
      cancellation,
      status: status(model, today),
      schedule: model.periods,
      net: model.periods.map((period) => [period.periodStart, net(model, period)]),
      total: total(model),
      billing: billingIn(model, today, graceDays, totals),
      row: {
        policyId: 'p',
        version: model.version,
        transactionId: 'transactionId' in writer ? writer.transactionId : null,
        paymentId: 'paymentId' in writer ? writer.paymentId : null,
        // open (storage's, not the contract's): the latest fields hold from '-infinity' after the
        // first transaction, and after a payment or refund while no change was ever made; else
        // from the latest transaction's date, on or after every change's.
        validFrom: model.version === 1 || ('paymentId' in writer && model.changes.length === 0) ? '-infinity' : model.latestDate,
        fields: fieldsIn(model, null),
        cancellation,
        cancelledFrom: cancellation?.effectiveDate ?? null,
        // What billing reads back: the charges per due day (a day summing to 0 left out), what was
        // paid, and the oldest unpaid due date (the lapse sweep's).
        dues: totals.filter(([, amount]) => amount !== 0),
        paid: model.paid,
        unpaidFrom: unpaidFrom(model, totals),
      },
    },
    label,
  );
  return billing;
}

const lineOf = ({ type, periodStart, periodEnd, dueDate, amount, reverses }: Line & { reverses?: string | null }): Line => ({
  type,
  periodStart,
  periodEnd,
  dueDate,
  amount,
  reverses: reverses ?? null,
});

/**
 * A payment or a refund (section 19), decided by `decidePayment` and by the model, which must
 * agree; when accepted, applied to both (`applyPayment`). Returns the state it leaves.
 */
function paymentStep(
  state: PolicyState,
  model: Model,
  command: Extract<Command, { kind: 'payment' | 'refund' }>,
  context: DecideContext,
  paymentId: string,
  label: string,
): { state: PolicyState; billing: Billing } {
  const { today, rules } = context;
  const { kind } = command;
  const amount = amountOf(model, command.amount, today);
  const date = command.daysAgo === null ? null : plusDays(today, -command.daysAgo);
  const reference = `provider-${paymentId}`;
  const refused = modelPayment(model, kind, amount, today);
  let decided: PaymentDecision | null = null;
  let refusal: ServiceError | null = null;
  try {
    decided = decidePayment(state, { kind, amount, reference, date }, context);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    refusal = error;
  }
  const what = `${label}: a ${kind} of ${amount}`;
  if (refused) {
    if (refusal?.code !== refused.refused) expect(refusal?.code, `${what}: ${refusal?.message ?? 'decided'}`).toBe(refused.refused);
    // Nothing written; only time has passed.
    same(statusOn(state, today), status(model, today), what);
    return { state, billing: expectBilling(state, model, today, rules.billingGraceDays, what) };
  }
  if (!decided) throw new Error(`${what}: refused (${refusal?.message}), the model records it`);
  // The row keeps the date sent, else today; money moves the same either way (paid counts them all).
  same(
    decided,
    {
      payment: { kind, amount, reference, date: date ?? today },
      event: kind === 'payment' ? 'policy.payment_recorded' : 'policy.refund_recorded',
    },
    what,
  );
  const next = applyPayment(state, { kind, amount });
  model.version += 1;
  model.paid += kind === 'payment' ? amount : -amount;
  if (kind === 'payment') model.payments += amount;
  else model.refunds += amount;
  const billing = expectSame(next, model, today, rules.billingGraceDays, { paymentId }, what);
  if (kind === 'refund') expectRefundCovered(billing, model, today, what);
  return { state: next, billing };
}

/**
 * Section 19: "A refund may not exceed the credit balance when it is recorded", the credit being
 * `-balance` = paid - billed on that day. What the policy has earned by then is, to billing, what
 * it has billed: every charge due on or before the day (a month's whole premium from its due
 * date, a cancellation's credits as they fall due), not a premium spread over the days covered.
 * So at every refund the refunds so far are at most the payments so far less what was billed that
 * day, and the refund leaves nothing owed that day (balance not positive: credit or settled).
 * Only on that day: billing goes on as time passes, and the policy may owe again.
 */
function expectRefundCovered(billing: Billing, model: Model, today: string, label: string): void {
  if (model.refunds > model.payments - dueBy(model, today) || billing.balance > 0) {
    expect({ refunds: model.refunds, payments: model.payments, billed: dueBy(model, today), balance: billing.balance }, label).toEqual(
      'refunds at most payments less billed, and no balance owed',
    );
  }
}

/** Runs one history: every step decided by the core and by the model, which must agree. */
function run(input: History): void {
  let chargeCount = 0;
  let transactionCount = 0;
  let paymentCount = 0;
  const chargeId = () => `c${chargeCount++}`;
  const rules: PolicyRules = { ...SETTINGS, maxCharges: input.maxCharges, billingGraceDays: input.graceDays };
  const graceDays = input.graceDays;
  const effectiveDate = plusDays('2025-01-01', input.start);
  const expirationDate = plusDays(plusMonths(effectiveDate, input.term.months), input.term.days);
  const plan = CATALOG[input.slug];
  const issued: Fields = {
    petName: 'Biscuit',
    petDOB: input.petDOB,
    ownerFirstname: 'Rosa',
    ownerLastname: 'Diaz',
    ownerDOB: null,
    coverageSlug: plan.slug,
    coverage: plan,
  };
  const premiums = schedule(effectiveDate, expirationDate, plan.monthlyPremium);
  // Section 5's schedule, as the create writes it.
  const created = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: plan.monthlyPremium, currency: 'USD' });
  same(
    created.map((charge) => lineOf({ ...charge, reverses: null })),
    premiums,
    'the schedule',
  );
  let model = opened(1, effectiveDate, expirationDate, issued, premiums, chargeId);
  let basis: PolicyBasis = { number: 1, effectiveDate, expirationDate, fields: issued as unknown as PolicyFields };
  let transactions = [
    posted(
      { id: `t${transactionCount++}`, kind: 'issuance', effectiveDate, changes: {}, createdAt: '2024-12-01T00:00:00.000Z' },
      model.ledger,
      model.ledger.map((line) => line.id),
    ),
  ];
  let state = apply(initialState(basis), transactions[0]);
  let latestId = transactions[0].id;
  let today = plusDays(effectiveDate, input.today);
  expectSame(state, model, today, graceDays, { transactionId: latestId }, 'issued');

  for (const [step, { command, wait }] of input.steps.entries()) {
    today = plusDays(today, wait);
    const context: DecideContext = { today, rules };
    if (command.kind === 'payment' || command.kind === 'refund') {
      const label = `step ${step} (${command.kind}, today ${today})`;
      const paid = paymentStep(state, model, command, context, `p${paymentCount++}`, label);
      state = paid.state;
      expectNeverOverRefunded(state, model, paid.billing, label);
      continue;
    }
    const createdAt = `${plusDays('2025-01-01', step)}T12:00:00.000Z`;
    let outcome: Outcome & { plan?: Plan };
    let decide: () => {
      kind: PostedTransaction['kind'];
      effectiveDate: string;
      changes: PostedTransaction['changes'];
      charges: readonly object[];
      event: string;
    };
    switch (command.kind) {
      case 'change': {
        const body = { effectiveDate: resolve(model, command.date), ...command.values };
        outcome = modelChange(model, body, today, rules.maxCharges);
        const plan = body.coverageSlug === undefined ? null : (CATALOG[body.coverageSlug] ?? null);
        decide = () => {
          const decision = decideChange(state, { ...body, plan }, context);
          if (!stepFits(state.charges.length, decision.charges.length, decision.room, rules.maxCharges))
            throw new ServiceError('INVALID_STATE', 'room');
          return decision;
        };
        break;
      }
      case 'cancel': {
        const body = { effectiveDate: resolve(model, command.date), reason: command.reason };
        outcome = modelCancel(model, body, today, rules.maxCharges);
        decide = () => {
          const decision = decideCancellation(state, body as Parameters<typeof decideCancellation>[1], context);
          if (!stepFits(state.charges.length, decision.charges.length, decision.room, rules.maxCharges))
            throw new ServiceError('INVALID_STATE', 'room');
          return decision;
        };
        break;
      }
      case 'reinstate':
        outcome = modelReinstate(model, today);
        decide = () => decideReinstatement(state, {}, context);
        break;
      case 'renew':
        outcome = modelRenew(model, command.slug, today);
        decide = () => {
          // As renew-policy.ts: the term, the plan priced (every slug here is in the catalog), then the rules.
          const term = successorTerm(state);
          const slug = command.slug ?? latestFields(state).coverageSlug;
          const decision = decideRenewal(state, { renewedBy: null, coverageSlug: slug }, context);
          const { monthlyPremium, currency } = CATALOG[slug];
          return {
            ...decision,
            charges: premiumSchedule({ ...term, monthlyPremium, currency }).map((charge) => ({ ...charge, reverses: null })),
          };
        };
        break;
    }

    let decided: ReturnType<typeof decide> | null = null;
    let refusal: ServiceError | null = null;
    try {
      decided = decide();
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      refusal = error;
    }
    const label = `step ${step} (${command.kind}, today ${today})`;
    if ('refused' in outcome) {
      if (refusal?.code !== outcome.refused) expect(refusal?.code, `${label}: ${refusal?.message ?? 'decided'}`).toBe(outcome.refused);
      if (outcome.refused === 'BAD_USER_INPUT') {
        const paths = (refusal?.extensions.errors as { path: string }[]).map((error) => error.path);
        same(paths.sort(), [...outcome.paths].sort(), label);
      }
      // Nothing written; only time has passed.
      same(statusOn(state, today), status(model, today), label);
      continue;
    }
    if (!decided) throw new Error(`${label}: refused (${refusal?.message}), the model writes it`);
    same(
      {
        effectiveDate: decided.effectiveDate,
        event: decided.event,
        changes: decided.changes,
        lines: (decided.charges as Line[]).map(lineOf),
      },
      { effectiveDate: outcome.effectiveDate, event: outcome.event, changes: outcome.changes, lines: outcome.lines.map(lineOf) },
      label,
    );

    if (command.kind === 'renew') {
      // The successor: a policy of its own, whose first transaction is the renewal.
      const plan = outcome.plan as Plan;
      const fields: Fields = { ...fieldsIn(model, null), coverageSlug: plan.slug, coverage: plan };
      const term = { effectiveDate: model.expirationDate, expirationDate: plusMonths(model.expirationDate, 12) };
      model = opened(model.number + 1, term.effectiveDate, term.expirationDate, fields, outcome.lines, chargeId);
      basis = { number: model.number, ...term, fields: fields as unknown as PolicyFields };
      transactions = [
        posted(
          { id: `t${transactionCount++}`, kind: 'renewal', effectiveDate: term.effectiveDate, changes: decided.changes, createdAt },
          outcome.lines,
          model.ledger.map((line) => line.id),
        ),
      ];
      state = apply(initialState(basis), transactions[0]);
      latestId = transactions[0].id;
      expectSame(state, model, today, graceDays, { transactionId: latestId }, label);
      continue;
    }

    const written = outcome.lines.map((line) => ({ ...lineOf(line), id: chargeId() }));
    const transaction = posted(
      { id: `t${transactionCount++}`, kind: decided.kind, effectiveDate: outcome.effectiveDate, changes: decided.changes, createdAt },
      written,
      written.map((line) => line.id),
    );
    transactions.push(transaction);
    state = apply(state, transaction);
    latestId = transaction.id;

    const totalBefore = total(model);
    model.ledger.push(...written);
    model.version += 1;
    model.latestDate = outcome.effectiveDate;
    switch (command.kind) {
      case 'change': {
        const values = Object.fromEntries(Object.entries(outcome.changes).map(([field, { to }]) => [field, to]));
        model.changes.push({ date: outcome.effectiveDate, values });
        if (values.coverage) {
          // Section 14: afterwards net(P) is the new plan's price for every period from the change.
          const priced = schedule(model.effectiveDate, model.expirationDate, (values.coverage as Plan).monthlyPremium);
          for (const period of priced) if (period.periodStart >= outcome.effectiveDate) same(net(model, period), period.amount, label);
        }
        break;
      }
      case 'cancel': {
        const to = outcome.changes.cancellation.to as { reason: string; method: string };
        const sum = (type: string) => written.reduce((total, line) => (line.type === type ? total + line.amount : total), 0);
        model.cancellation = {
          effectiveDate: outcome.effectiveDate,
          reason: to.reason,
          method: to.method,
          credited: sum('credit'),
          fee: sum('fee'),
          createdAt,
          lines: written,
          owedBefore: totalBefore,
        };
        break;
      }
      case 'reinstate': {
        // Section 14: afterwards the sum of the charges is what it was before the cancellation.
        same(total(model), (model.cancellation as ModelCancellation).owedBefore, label);
        model.cancellation = null;
        break;
      }
    }
    expectNeverOverRefunded(state, model, expectSame(state, model, today, graceDays, { transactionId: latestId }, label), label);
  }
  // The grace period's edge, which a random today seldom hits: the oldest unpaid charge is past
  // due from BILLING_GRACE_DAYS after its due date on, not the day before.
  const oldest = unpaidFrom(model);
  if (oldest) {
    for (const date of [plusDays(oldest, graceDays - 1), plusDays(oldest, graceDays)])
      expectBilling(state, model, date, graceDays, 'the end');
  }
  // The fold of the whole ledger is the state the steps built one by one; payments and refunds
  // are not transactions: their sum and the version come from storage (withPayments).
  same(withPayments(fold(basis, transactions), { version: model.version, paid: model.paid }), state, 'the fold of the whole ledger');
}

/**
 * What follows from refunds being covered when recorded: billed is never negative (a credit is at
 * most the charges of the period it credits, and due no earlier than they are), so a policy never
 * refunds more than it was paid: `paid` stays at or above 0 through every step, whatever time does.
 */
function expectNeverOverRefunded(state: PolicyState, model: Model, billing: Billing, label: string): void {
  if (billing.billed < 0 || state.paid < 0 || model.refunds > model.payments) {
    expect({ billed: billing.billed, paid: state.paid, payments: model.payments, refunds: model.refunds }, label).toEqual(
      'billed not negative, refunds at most payments',
    );
  }
}

describe('the ledger core against a model of contract sections 5, 14 and 19', () => {
  it('agrees on 10,000 random histories: fields by date, the cancellation, the status, net(P), the charges, billing and the stored row', () => {
    const started = performance.now();
    fc.assert(fc.property(history, run), { numRuns: 10_000 });
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
