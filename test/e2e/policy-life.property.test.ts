import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { apply, applyPayment, fold, stateRow, type PolicyState, type PostedTransaction } from '../../src/policies/ledger/state.js';
import { addDays, addMonthsClamped, daysBetween, todayUtc } from '../../src/values/calendar-date.js';
import { policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Issue 24 item 5: random sequences of transactions on one policy (field changes, plan changes on
 * billing dates and off them, cancellations with random reasons and dates, reinstatements, in
 * valid and invalid orders), over HTTP against the real service. The test keeps its own model of
 * the policy, written from contract sections 5 and 14 (nothing of src/policies is used), and
 * after every step checks: the answer's status is the one the rules give; the ledger is the
 * model's charge for charge, so its sum is the premium owed; no earlier charge changed; a refused
 * step wrote nothing (charges, transactions, events); and the transactions list replays to the
 * policy as read. And (issue 38) the state stored with each transaction (policy_state) is the
 * service's fold (ledger/state.ts) of the ledger up to it, row for row: what reads show is what
 * the one rendering of the rules gives, never a copy that drifted. And (issue 39) payments and
 * refunds among the steps: the model's billing summary (contract section 19, from the model's own
 * ledger) is every read's `billing` to the cent, and a refund beyond the credit is refused.
 */
const GRACE_DAYS = 15;

const PRICES: Record<string, number> = {
  'accident-only': 1200,
  'accident-illness-basic': 2900,
  'accident-illness-plus': 4200,
  'accident-illness-unlimited': 6400,
};
const SLUGS = Object.keys(PRICES);
const REASONS = ['insured_request', 'non_payment', 'underwriting', 'fraud', 'free_look', 'other'] as const;
const FIELDS = ['petName', 'petDOB', 'ownerFirstname', 'ownerLastname', 'ownerDOB', 'coverageSlug', 'coverage'] as const;
const FREE_LOOK_DAYS = 15;
const SHORT_RATE_PERCENT = 10;
const REINSTATEMENT_DAYS = 30;

interface Line {
  type: string;
  periodStart: string;
  periodEnd: string;
  amount: number;
}
interface Period {
  periodStart: string;
  periodEnd: string;
}

/** `amount × numerator ÷ denominator` rounded half up on the absolute value, sign kept (section 14), in integers. */
function share(amount: number, numerator: number, denominator: number): number {
  const magnitude = Math.floor((2 * Math.abs(amount) * numerator + denominator) / (2 * denominator));
  return amount < 0 ? -magnitude : magnitude;
}

/** Section 5: monthly periods from the start, clamped; a final partial period prorated against the full one it cuts short. */
function periodsOf(start: string, end: string): (Period & { fullEnd: string })[] {
  const periods = [];
  for (let k = 0; addMonthsClamped(start, k) < end; k++) {
    const fullEnd = addMonthsClamped(start, k + 1);
    periods.push({ periodStart: addMonthsClamped(start, k), periodEnd: fullEnd < end ? fullEnd : end, fullEnd });
  }
  return periods;
}
const priceFor = (period: ReturnType<typeof periodsOf>[number], monthly: number) =>
  period.periodEnd === period.fullEnd
    ? monthly
    : share(monthly, daysBetween(period.periodStart, period.periodEnd), daysBetween(period.periodStart, period.fullEnd));

/** The model: what the rules say the policy is after each accepted step. */
class Model {
  readonly periods: ReturnType<typeof periodsOf>;
  readonly ledger: Line[];
  latest: string;
  /** The values after every change so far (the values on the latest transaction's date). */
  fields: Record<string, unknown>;
  cancellation: { date: string; reason: string; lines: Line[] } | null = null;
  /** Payments minus refunds (contract section 19). */
  paid = 0;

  constructor(
    readonly start: string,
    readonly end: string,
    issued: Record<string, unknown>,
  ) {
    this.periods = periodsOf(start, end);
    this.ledger = this.periods.map((period) => ({
      type: 'premium',
      periodStart: period.periodStart,
      periodEnd: period.periodEnd,
      amount: priceFor(period, PRICES[issued.coverageSlug as string]),
    }));
    this.latest = start;
    this.fields = Object.fromEntries(FIELDS.map((field) => [field, issued[field]]));
  }

  net(period: Period): number {
    return this.ledger
      .filter((line) => line.periodStart === period.periodStart && line.periodEnd === period.periodEnd)
      .reduce((sum, line) => sum + line.amount, 0);
  }

  /** The status the rules give a change, and (when accepted) the model after it. */
  change(body: Record<string, string>): number {
    const date = body.effectiveDate;
    const requested = Object.entries(body).filter(([field]) => field !== 'effectiveDate');
    const changed = requested.filter(([field, value]) => this.fields[field] !== value);
    const planChange = changed.some(([field]) => field === 'coverageSlug');
    if (body.petDOB !== undefined && body.petDOB > this.start) return 400;
    if (planChange && !this.periods.some((period) => period.periodStart === date)) return 400;
    if (changed.length === 0) return 400;
    if (this.cancellation || date < this.start || date >= this.end || date < this.latest) return 409;
    if (planChange) {
      const monthly = PRICES[body.coverageSlug];
      for (const period of this.periods) {
        if (period.periodStart < date) continue;
        this.ledger.push({ type: 'credit', periodStart: period.periodStart, periodEnd: period.periodEnd, amount: -this.net(period) });
        this.ledger.push({
          type: 'premium',
          periodStart: period.periodStart,
          periodEnd: period.periodEnd,
          amount: priceFor(period, monthly),
        });
      }
    }
    for (const [field, value] of changed) this.fields[field] = value;
    if (planChange) this.fields.coverage = body.coverageSlug;
    this.latest = date;
    return 200;
  }

  cancel(date: string, reason: string): number {
    if (reason === 'free_look' && daysBetween(this.start, date) > FREE_LOOK_DAYS) return 400;
    if (this.cancellation || date < this.start || date >= this.end || date < this.latest) return 409;
    const lines: Line[] = [];
    for (const period of this.periods) {
      const ended = period.periodEnd <= date;
      if (ended && reason !== 'free_look') continue;
      const from = !ended && date > period.periodStart ? date : period.periodStart;
      const owed = this.net(period);
      const credit =
        reason === 'free_look' ? owed : share(owed, daysBetween(from, period.periodEnd), daysBetween(period.periodStart, period.periodEnd));
      lines.push({ type: 'credit', periodStart: from, periodEnd: period.periodEnd, amount: -credit || 0 });
    }
    if (reason === 'insured_request') {
      const credited = lines.reduce((sum, line) => sum + line.amount, 0);
      lines.push({ type: 'fee', periodStart: date, periodEnd: this.end, amount: share(-credited, SHORT_RATE_PERCENT, 100) });
    }
    this.ledger.push(...lines);
    this.cancellation = { date, reason, lines };
    this.latest = date;
    return 200;
  }

  /**
   * Section 19's summary on `today`. Every line here falls due on its periodStart (section 5: a
   * premium's dueDate is its periodStart; section 14: a credit's and a reversal's too, a fee on the
   * cancellation's date, its periodStart).
   */
  billing(today: string) {
    const dueBy = (date: string) => this.ledger.filter((line) => line.periodStart <= date).reduce((sum, line) => sum + line.amount, 0);
    const billed = dueBy(today);
    const balance = billed - this.paid;
    const pastDue = Math.max(0, dueBy(addDays(today, -GRACE_DAYS)) - this.paid);
    const days = [...new Set(this.ledger.map((line) => line.periodStart))].filter((date) => date > today).sort();
    const next = days
      .map((date) => [date, this.ledger.filter((line) => line.periodStart === date).reduce((sum, line) => sum + line.amount, 0)] as const)
      .find(([, amount]) => amount !== 0);
    const status = balance < 0 ? 'credit' : pastDue > 0 ? 'past_due' : balance > 0 ? 'due' : 'settled';
    return { billed, paid: this.paid, balance, pastDue, status, nextDueDate: next?.[0] ?? null, nextDueAmount: next?.[1] ?? null };
  }

  /** A payment is always recorded; a refund only up to the credit balance, else 409. */
  money(kind: 'payment' | 'refund', amount: number, today: string): number {
    if (kind === 'refund' && amount > Math.max(0, -this.billing(today).balance)) return 409;
    this.paid += kind === 'payment' ? amount : -amount;
    return 200;
  }

  reinstate(today: string): number {
    const { cancellation } = this;
    if (!cancellation || cancellation.reason === 'fraud' || daysBetween(cancellation.date, today) > REINSTATEMENT_DAYS) return 409;
    this.ledger.push(...cancellation.lines.map((line) => ({ ...line, type: 'reversal', amount: -line.amount || 0 })));
    this.cancellation = null;
    return 200;
  }
}

/** A date: a few days after the latest transaction (mostly valid), or anywhere around the term (often not). */
const dateChoice = fc.oneof(
  fc.record({ after: fc.integer({ min: 0, max: 25 }) }),
  fc.record({ fromToday: fc.integer({ min: -120, max: 120 }) }),
);
const step = fc.oneof(
  fc.record({
    kind: fc.constant('fields' as const),
    date: dateChoice,
    fields: fc.record(
      {
        petName: fc.constantFrom('Biscuit', 'Pepper', 'Mochi 🐾'),
        ownerFirstname: fc.constantFrom('Rosa', 'Ana'),
        ownerLastname: fc.constantFrom('Diaz', 'Park'),
        ownerDOB: fc.constantFrom('1980-02-29', '1991-07-01'),
        // Some after the policy's effectiveDate (400).
        petDOB: fc.integer({ min: -300, max: 150 }),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({
    kind: fc.constant('plan' as const),
    slug: fc.constantFrom(...SLUGS),
    // The next billing date on or after the latest transaction (+ skip), any period's start, or off a billing date.
    when: fc.oneof(
      fc.record({ nextBilling: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ period: fc.integer({ min: 0, max: 12 }), off: fc.constantFrom(0, 0, 1, 9, 20) }),
    ),
    rename: fc.option(fc.constantFrom('Pepper', 'Nori'), { nil: undefined }),
  }),
  // Mostly near today, so that many can be reinstated (at most 30 days after they took effect).
  fc.record({
    kind: fc.constant('cancel' as const),
    date: fc.oneof(
      dateChoice,
      fc.record({ fromToday: fc.integer({ min: -35, max: 60 }) }),
      fc.record({ fromToday: fc.integer({ min: -35, max: 60 }) }),
    ),
    reason: fc.constantFrom(...REASONS),
  }),
  // Three times as likely as the others: most reinstatements meet no cancellation to undo.
  { arbitrary: fc.record({ kind: fc.constant('reinstate' as const) }), weight: 3 },
  // Contract section 19: money recorded, often well ahead; refunds small (within a credit) or not (409).
  fc.record({
    kind: fc.constant('payment' as const),
    // Any amount, or all that is owed and a month ahead (a credit for the refunds to take).
    amount: fc.oneof(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom(1200, 4200, 50_000, 'ahead' as const)),
  }),
  fc.record({
    kind: fc.constant('refund' as const),
    // The credit exactly, a cent over it (the boundary), or any amount.
    amount: fc.oneof(fc.constantFrom('credit' as const, 'a cent over' as const), fc.integer({ min: 1, max: 20_000 })),
  }),
);

/**
 * A money step's amount: as drawn, or from the balance: all that is owed and a month ahead (a
 * credit for refunds to take), the credit exactly, or a cent over it (409).
 */
function amountFor(chosen: number | 'ahead' | 'credit' | 'a cent over', balance: number): number {
  const credit = Math.max(0, -balance);
  if (chosen === 'ahead') return Math.max(0, balance) + 4200;
  if (chosen === 'credit') return Math.max(1, credit);
  if (chosen === 'a cent over') return credit + 1;
  return chosen;
}

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/**
 * Besides the random runs, one that reaches both sides of the money rules and a reinstatement
 * every time: paid ahead, the credit refunded, a cent more refused, a cancellation today and its
 * reinstatement.
 */
const EVERY_RULE: [startedDaysAgo: number, slug: string, steps: Step[]] = [
  60,
  'accident-illness-plus',
  [
    { kind: 'payment', amount: 'ahead' },
    { kind: 'refund', amount: 'credit' },
    { kind: 'refund', amount: 'a cent over' },
    { kind: 'cancel', date: { fromToday: 0 }, reason: 'underwriting' },
    { kind: 'reinstate' },
  ],
];

describe('a policy through random sequences of transactions', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  const counts = async (number: number) =>
    (
      await service.sql(
        `select (select count(*)::int from charge c where c.policy_id = p.id) as charges,
          (select count(*)::int from policy_transaction t where t.policy_id = p.id) as transactions,
          (select count(*)::int from event e where (e.data->'object'->>'number')::bigint = p.number) as events
         from policy p where p.number = $1`,
        [number],
      )
    )[0];

  /**
   * The stored state rows of a policy, and what the fold of its ledger gives for each: its
   * transactions and payments applied in the order their rows were written (by version).
   */
  const storedAndFolded = async (number: number) => {
    const [policy] = await service.sql<Record<string, any>>(
      `select p.id, p.number::int as number, p.effective_date::text as "effectiveDate", p.expiration_date::text as "expirationDate",
         json_build_object('petName', p.pet_name, 'petDOB', p.pet_dob::text, 'ownerFirstname', p.owner_firstname,
           'ownerLastname', p.owner_lastname, 'ownerDOB', p.owner_dob::text, 'coverageSlug', p.coverage_slug, 'coverage', p.coverage) as fields
       from policy p where p.number = $1`,
      [number],
    );
    const transactions = await service.sql<Record<string, any>>(
      `select t.id, t.type as kind, t.effective_date::text as "effectiveDate", t.changes,
         to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
         coalesce((select json_agg(json_build_object('id', c.id, 'type', c.type, 'periodStart', c.period_start::text,
           'periodEnd', c.period_end::text, 'dueDate', c.due_date::text, 'amount', c.amount, 'currency', c.currency, 'reverses', c.reverses)
           order by c.sequence) from charge c where c.transaction_id = t.id), '[]') as charges
       from policy_transaction t where t.policy_id = $1 order by t.seq`,
      [policy.id],
    );
    const payments = await service.sql<{ id: string; kind: 'payment' | 'refund'; amount: number }>(
      `select id, type as kind, amount from policy_payment where policy_id = $1`,
      [policy.id],
    );
    const stored = await service.sql<Record<string, any>>(
      `select policy_id as "policyId", version, transaction_id as "transactionId", valid_from::text as "validFrom", fields, cancellation,
         cancelled_from::text as "cancelledFrom", payment_id as "paymentId", dues, paid::int as paid, unpaid_from::text as "unpaidFrom"
       from policy_state where policy_id = $1 order by version`,
      [policy.id],
    );
    const { fields, effectiveDate, expirationDate } = policy;
    let state: PolicyState = fold({ number, effectiveDate, expirationDate, fields }, []);
    const folded = stored.map((row) => {
      if (row.transactionId) {
        state = apply(state, transactions.find((transaction) => transaction.id === row.transactionId) as PostedTransaction);
        return stateRow(state, { policyId: policy.id, transactionId: row.transactionId });
      }
      state = applyPayment(
        state,
        payments.find((payment) => payment.id === row.paymentId)!,
      );
      return stateRow(state, { policyId: policy.id, paymentId: row.paymentId });
    });
    return { stored, folded };
  };

  it('keeps the ledger, the charges, the refusals and the replay right after every step', { timeout: 180_000 }, async () => {
    /** How often each kind of step got each status: the runs must have reached both sides of every rule. */
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.constantFrom(...SLUGS),
        fc.array(step, { minLength: 1, maxLength: 8 }),
        async (startedDaysAgo, slug, steps) => {
          const today = todayUtc();
          const start = addDays(today, -startedDaysAgo);
          const end = addMonthsClamped(start, 12);
          const created = await request(service.url, 'POST', '/api/v1/policy', {
            token,
            body: policyBody({ effectiveDate: start, expirationDate: end, coverageSlug: slug, petDOB: addDays(start, -400) }),
          });
          expect(created.status, JSON.stringify(created.body)).toBe(200);
          const { number } = created.body;
          const issued = { ...created.body, coverage: created.body.coverage.slug };
          const model = new Model(start, end, issued);
          let charges = created.body.charges;

          for (const action of steps) {
            const dateOf = (choice: { after?: number; fromToday?: number }) =>
              'after' in choice ? addDays(model.latest, choice.after!) : addDays(today, choice.fromToday!);
            let path: string;
            let body: Record<string, unknown>;
            let expected: number;
            if (action.kind === 'fields') {
              const { petDOB, ...text } = action.fields;
              body = { effectiveDate: dateOf(action.date), ...text, ...(petDOB === undefined ? {} : { petDOB: addDays(start, petDOB) }) };
              if (Object.keys(body).length === 1) body.petName = 'Biscuit';
              path = 'changes';
              expected = model.change(body as Record<string, string>);
            } else if (action.kind === 'plan') {
              const { when } = action;
              const billing =
                'nextBilling' in when
                  ? (model.periods.filter((period) => period.periodStart >= model.latest)[when.nextBilling]?.periodStart ?? end)
                  : addDays(addMonthsClamped(start, when.period), when.off);
              body = { effectiveDate: billing, coverageSlug: action.slug, ...(action.rename ? { petName: action.rename } : {}) };
              path = 'changes';
              expected = model.change(body as Record<string, string>);
            } else if (action.kind === 'cancel') {
              body = { effectiveDate: dateOf(action.date), reason: action.reason };
              path = 'cancellation';
              expected = model.cancel(body.effectiveDate as string, action.reason);
            } else if (action.kind === 'payment' || action.kind === 'refund') {
              const amount = amountFor(action.amount, model.billing(today).balance);
              body = { amount, reference: `${action.kind}-${number}-${seen.size}-${Math.random()}` };
              path = action.kind === 'payment' ? 'payments' : 'refunds';
              expected = model.money(action.kind, amount, today);
            } else {
              body = {};
              path = 'reinstatement';
              expected = model.reinstate(today);
            }

            const before = await counts(number);
            const response = await request(service.url, 'POST', `/api/v1/policy/${number}/${path}`, { token, body });
            const label = `${path} ${JSON.stringify(body)} -> ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`;
            expect(response.status, label).toBe(expected);
            const kind = `${action.kind} ${response.status}`;
            seen.set(kind, (seen.get(kind) ?? 0) + 1);
            if (response.status !== 200) expect(await counts(number), label).toEqual(before);
            // The stored state, row for row, is the fold of the ledger up to each transaction.
            const { stored, folded } = await storedAndFolded(number);
            expect(stored, label).toEqual(folded);

            const read = (await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body;
            if (response.status === 200) expect(response.body, label).toEqual(read);
            // No charge is ever altered: the earlier ones are there, unchanged, in front.
            expect(read.charges.slice(0, charges.length), label).toEqual(charges);
            charges = read.charges;
            // Charge for charge the model's ledger, so the sum is the premium owed.
            expect(
              read.charges.map(({ type, periodStart, periodEnd, amount }: Line) => ({ type, periodStart, periodEnd, amount })),
              label,
            ).toEqual(model.ledger);
            expect(read.charges.reduce((sum: number, charge: Line) => sum + charge.amount, 0)).toBe(
              model.ledger.reduce((sum, line) => sum + line.amount, 0),
            );

            // The transactions replay to the policy as read: the changes in effect today, in order, over the issuance's values.
            const transactions = (await request(service.url, 'GET', `/api/v1/policy/${number}/transactions?limit=100`, { token })).body
              .data;
            const replayed: Record<string, unknown> = { ...issued, coverage: created.body.coverage };
            for (const transaction of transactions) {
              if (transaction.type !== 'change' || transaction.effectiveDate > today) continue;
              for (const [field, { to }] of Object.entries(transaction.changes as Record<string, { to: unknown }>)) replayed[field] = to;
            }
            // The REST read carries every field (contract section 18); GraphQL reads the same values.
            const { policy } = (
              await graphql(
                service.url,
                `{ policy(number: ${number}) { ${FIELDS.filter((field) => field !== 'coverage').join(' ')} } }`,
                {},
                token,
              )
            ).body.data;
            const shown = { ...policy, coverage: read.coverage };
            for (const field of FIELDS) expect(shown[field], `${label}: ${field}`).toEqual(replayed[field]);
            for (const field of FIELDS) expect(read[field], `${label}: REST ${field}`).toEqual(replayed[field]);
            expect(read.coverage.slug).toBe(shown.coverageSlug);
            // Billing (contract section 19) to the cent, from the model's own ledger and payments.
            expect(read.billing, `${label}: billing`).toEqual(model.billing(today));
          }
        },
      ),
      {
        numRuns: 40,
        // Besides the random runs, one that reaches both sides of the money rules and a
        // reinstatement every time: paid ahead, the credit refunded, a cent more refused, a
        // cancellation today and its reinstatement.
        examples: [EVERY_RULE],
      },
    );
    const tally = JSON.stringify(Object.fromEntries(seen));
    for (const kind of ['fields', 'plan', 'cancel', 'reinstate', 'refund']) {
      expect(seen.get(`${kind} 200`) ?? 0, `${kind} accepted: ${tally}`).toBeGreaterThan(0);
      expect([...seen].filter(([key]) => key.startsWith(`${kind} 4`)).length, `${kind} refused: ${tally}`).toBeGreaterThan(0);
    }
    expect(seen.get('fields 400') ?? 0, tally).toBeGreaterThan(0);
    expect(seen.get('plan 400') ?? 0, tally).toBeGreaterThan(0);
    expect(seen.get('payment 200') ?? 0, tally).toBeGreaterThan(0);
  });
});
