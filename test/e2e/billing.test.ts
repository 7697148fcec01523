import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonthsClamped, compareDates, daysBetween, todayUtc } from '../../src/values/calendar-date.js';
import { policyBody } from '../support/fixtures.js';
import { clientOf, createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 19 over the real service: payments and refunds on REST and GraphQL, the
 * billing summary on every read, the worked example to the cent, races, replays, refusals that
 * leave nothing, the events, and the lists' billingStatus filter agreeing with the reads.
 * The money rules themselves against a model: test/unit/ledger-histories.test.ts and billing.test.ts.
 */

const PLUS = 4200;

/**
 * The worked example's calendar, moved to a year that lets it run today: a term from the 1st of
 * a month whose fifth month has 31 days (May in the contract), the cancellation on the 10th of
 * that month already past, and the term not yet over (a cancellation needs a policy not expired).
 */
function workedExampleDates(today = todayUtc()): { start: string; cancelOn: string; paidOn: string[] } {
  for (let back = 0; back < 24; back++) {
    const start = addMonthsClamped(`${today.slice(0, 7)}-01`, -back);
    const fifth = addMonthsClamped(start, 4);
    const cancelOn = addDays(fifth, 9);
    if (daysBetween(fifth, addMonthsClamped(fifth, 1)) !== 31) continue;
    if (compareDates(cancelOn, today) > 0 || compareDates(addMonthsClamped(start, 12), today) <= 0) continue;
    return { start, cancelOn, paidOn: [0, 1, 2, 3, 4].map((k) => addMonthsClamped(start, k)) };
  }
  throw new Error(`no term around ${today} fits the worked example`);
}

describe('billing: payments, refunds and the summary (contract section 19)', () => {
  const service = useTestService();
  const client = clientOf(service);
  let token: string;
  let organizationId: string;
  let nextNumber = 39_000;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  const create = async (overrides: Record<string, unknown>) => {
    const response = await client.request('POST', '/api/v1/policy', {
      token,
      body: policyBody({ number: nextNumber++, coverageSlug: 'accident-illness-plus', ...overrides }),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body as { number: number; version: number; billing: Record<string, unknown> };
  };
  const pay = (number: number, body: object, headers: Record<string, string> = {}, as = token) =>
    client.request('POST', `/api/v1/policy/${number}/payments`, { token: as, body, headers });
  const refund = (number: number, body: object, headers: Record<string, string> = {}, as = token) =>
    client.request('POST', `/api/v1/policy/${number}/refunds`, { token: as, body, headers });
  /**
   * Twenty racers, from two callers of the organization: one caller may have 16 requests in
   * flight (RATE_LIMIT_CONCURRENT_REQUESTS), and the race is between requests, not a rate limit.
   */
  const racing = async (send: (index: number, as: string) => ReturnType<typeof pay>) => {
    const second = await client.token({ sub: 'bob', org: organizationId });
    return Promise.all(Array.from({ length: 20 }, (_, index) => send(index, index % 2 === 0 ? token : second)));
  };
  const read = async (number: number) => (await client.request('GET', `/api/v1/policy/${number}`, { token })).body;
  const written = async (number: number) =>
    (
      await service.sql<{ payments: number; states: number; events: number }>(
        `select (select count(*)::int from policy_payment m where m.policy_id = p.id) as payments,
          (select count(*)::int from policy_state s where s.policy_id = p.id) as states,
          (select count(*)::int from event e where (e.data->'object'->>'number')::bigint = p.number) as events
         from policy p where p.number = $1`,
        [number],
      )
    )[0];

  it('runs the worked example to the cent over REST: billed 18,019, a credit of 2,981 refunded, 2,982 refused', async () => {
    const { start, cancelOn, paidOn } = workedExampleDates();
    const { number } = await create({ effectiveDate: start, expirationDate: addMonthsClamped(start, 12) });
    for (const [k, date] of paidOn.entries()) {
      const paid = await pay(number, { amount: PLUS, reference: `pi_${k + 1}`, receivedOn: date });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(paid.headers.get('etag')).toBe(`"${k + 2}"`);
    }
    const cancelled = await client.request('POST', `/api/v1/policy/${number}/cancellation`, {
      token,
      body: { effectiveDate: cancelOn, reason: 'underwriting' },
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const credits = cancelled.body.charges.filter((charge: { type: string }) => charge.type === 'credit');
    expect(credits.map((charge: { amount: number }) => charge.amount)).toEqual([-2981, ...Array(7).fill(-PLUS)]);
    expect(cancelled.body.cancellation).toMatchObject({ method: 'pro_rata', credited: -2981 - 7 * PLUS });
    expect(cancelled.body.billing).toEqual({
      billed: 18_019,
      paid: 21_000,
      balance: -2981,
      pastDue: 0,
      status: 'credit',
      nextDueDate: null,
      nextDueAmount: null,
    });
    expect(cancelled.body.version).toBe(7);

    const before = await written(number);
    const tooMuch = await refund(number, { amount: 2982, reference: 're_1' });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body).toMatchObject({ code: 'INVALID_STATE', detail: expect.stringContaining('credit balance of 2981') });
    expect(await written(number)).toEqual(before);

    const refunded = await refund(number, { amount: 2981, reference: 're_1' });
    expect(refunded.status, JSON.stringify(refunded.body)).toBe(200);
    expect(refunded.body.billing).toMatchObject({ billed: 18_019, paid: 18_019, balance: 0, pastDue: 0, status: 'settled' });
    expect(refunded.headers.get('etag')).toBe('"8"');
    expect(await read(number)).toEqual(refunded.body);
    expect(await written(number)).toEqual({ payments: before.payments + 1, states: before.states + 1, events: before.events + 1 });

    const listed = await client.request('GET', `/api/v1/policy/${number}/payments?limit=4`, { token });
    expect(listed.body.data.map(({ type, amount, reference }: Record<string, unknown>) => [type, amount, reference])).toEqual([
      ['payment', PLUS, 'pi_1'],
      ['payment', PLUS, 'pi_2'],
      ['payment', PLUS, 'pi_3'],
      ['payment', PLUS, 'pi_4'],
    ]);
    expect(listed.body.data[0]).toMatchObject({
      date: paidOn[0],
      createdBy: 'alice',
      id: expect.any(String),
      createdAt: expect.any(String),
    });
    const rest = await client.request('GET', `/api/v1/policy/${number}/payments?after=${listed.body.nextCursor}`, { token });
    expect(rest.body.data.map(({ type, reference }: Record<string, unknown>) => [type, reference])).toEqual([
      ['payment', 'pi_5'],
      ['refund', 're_1'],
    ]);
    expect(rest.body.hasMore).toBe(false);
    // Payments are not transactions (contract section 19): the transactions list has the two steps only.
    const transactions = await client.request('GET', `/api/v1/policy/${number}/transactions`, { token });
    expect(transactions.body.data.map((transaction: { type: string }) => transaction.type)).toEqual(['issuance', 'cancellation']);
  });

  it('records each as an event with the policy, its version and billing, and the payment as its transaction', async () => {
    const { number } = await create({ effectiveDate: todayUtc(), expirationDate: addMonthsClamped(todayUtc(), 12) });
    expect((await pay(number, { amount: 10_000, reference: 'ch_evt' })).status).toBe(200);
    expect((await refund(number, { amount: 5_800, reference: 're_evt', paidOn: todayUtc() })).status).toBe(200);
    const events = await client.request('GET', '/api/v1/events?type=policy.payment_recorded,policy.refund_recorded&limit=100', { token });
    const mine = events.body.data.filter((event: { data: { object: { number: number } } }) => event.data.object.number === number);
    expect(mine.map((event: { type: string }) => event.type).sort()).toEqual(['policy.payment_recorded', 'policy.refund_recorded']);
    const refunded = mine.find((event: { type: string }) => event.type === 'policy.refund_recorded');
    expect(refunded.actor).toEqual({ sub: 'alice', apiKeyId: null });
    expect(refunded.data.object).toMatchObject({
      number,
      version: 3,
      billing: { billed: PLUS, paid: 4_200, balance: 0, status: 'settled', nextDueAmount: PLUS },
    });
    expect(refunded.data.object.charges).toBeUndefined();
    expect(refunded.data.transaction).toMatchObject({
      type: 'refund',
      effectiveDate: todayUtc(),
      changes: { paid: { from: 10_000, to: 4_200 } },
      charges: [],
    });
  });

  it('keeps one payment per reference, also when 20 race; a replayed key answers the same without a second one', async () => {
    const { number } = await create({ effectiveDate: todayUtc(), expirationDate: addMonthsClamped(todayUtc(), 12) });
    const answers = await racing((_, as) => pay(number, { amount: 100, reference: 'pi_race' }, {}, as));
    const codes = answers.map((answer) => (answer.status === 200 ? 200 : `${answer.status} ${answer.body.code}`));
    expect(codes.filter((code) => code === 200)).toHaveLength(1);
    expect(codes.filter((code) => code === '409 CONFLICT')).toHaveLength(19);
    expect((await written(number)).payments).toBe(1);

    const keyed = { 'Idempotency-Key': `pay-${number}` };
    const first = await pay(number, { amount: 200, reference: 'pi_keyed' }, keyed);
    const again = await pay(number, { amount: 200, reference: 'pi_keyed' }, keyed);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await written(number)).payments).toBe(2);
    expect((await read(number)).billing.paid).toBe(300);
  });

  it('lets 20 racing refunds together take at most the credit balance', async () => {
    const { number } = await create({ effectiveDate: todayUtc(), expirationDate: addMonthsClamped(todayUtc(), 12) });
    // Paid 10,000 against the 4,200 billed today: a credit of 5,800; 20 refunds of 1,000 ask for 20,000.
    expect((await pay(number, { amount: 10_000, reference: 'pi_credit' })).status).toBe(200);
    const answers = await racing((index, as) => refund(number, { amount: 1_000, reference: `re_${index}` }, {}, as));
    const accepted = answers.filter((answer) => answer.status === 200);
    expect(answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.body.code}`)).toEqual(
      Array(15).fill('409 INVALID_STATE'),
    );
    expect(accepted).toHaveLength(5);
    const billing = (await read(number)).billing;
    expect(billing).toMatchObject({ paid: 5_000, balance: PLUS - 5_000, status: 'credit' });
    expect(billing.balance).toBeLessThanOrEqual(0);
  });

  it('refuses bad bodies with every error at once, and a policy out of reach with 404, writing nothing', async () => {
    const { number } = await create({ effectiveDate: todayUtc(), expirationDate: addMonthsClamped(todayUtc(), 12) });
    const before = await written(number);
    const bad = await pay(number, { amount: 0, reference: 'tab\there', receivedOn: addDays(todayUtc(), 1), recievedOn: todayUtc() });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      'amount',
      'receivedOn',
      'recievedOn',
      'reference',
    ]);
    expect(bad.body.errors.find((error: { path: string }) => error.path === 'recievedOn').message).toContain('did you mean "receivedOn"');
    expect((await refund(number, { amount: 100_000_001, reference: 'x'.repeat(101) })).body.errors).toHaveLength(2);
    const stranger = await client.token({ sub: 'mallory' });
    const outOfReach = await client.request('POST', `/api/v1/policy/${number}/payments`, {
      token: stranger,
      body: { amount: 1, reference: 'x' },
    });
    expect(outOfReach.status).toBe(404);
    expect((await client.request('GET', `/api/v1/policy/${number}/payments`, { token: stranger })).status).toBe(404);
    expect(await written(number)).toEqual(before);
  });

  it('answers the same over GraphQL: recordPayment, recordRefund, Policy.billing and Policy.payments', async () => {
    const { number } = await create({ effectiveDate: todayUtc(), expirationDate: addMonthsClamped(todayUtc(), 12) });
    const graphql = (query: string, variables: object) => client.request('POST', '/graphql', { token, body: { query, variables } });
    const paid = await graphql(
      `mutation ($number: SafeInt!, $input: RecordPaymentInput!) { recordPayment(number: $number, input: $input) {
        version billing { billed paid balance pastDue status nextDueDate nextDueAmount } } }`,
      { number, input: { amount: 5_000, reference: 'gql_pi' } },
    );
    expect(paid.body.errors).toBeUndefined();
    expect(paid.body.data.recordPayment).toEqual({
      version: 2,
      billing: {
        billed: PLUS,
        paid: 5_000,
        balance: PLUS - 5_000,
        pastDue: 0,
        status: 'credit',
        nextDueDate: addMonthsClamped(todayUtc(), 1),
        nextDueAmount: PLUS,
      },
    });
    const refunded = await graphql(
      `mutation ($number: SafeInt!, $input: RecordRefundInput!) { recordRefund(number: $number, input: $input) { billing { status } } }`,
      { number, input: { amount: 800, reference: 'gql_re' } },
    );
    expect(refunded.body.data.recordRefund.billing.status).toBe('settled');
    const listed = await graphql(
      `query ($number: SafeInt!) { policy(number: $number) { payments(first: 10) { edges { node { type amount reference } } } } }`,
      { number },
    );
    expect(listed.body.data.policy.payments.edges.map((edge: { node: object }) => edge.node)).toEqual([
      { type: 'payment', amount: 5_000, reference: 'gql_pi' },
      { type: 'refund', amount: 800, reference: 'gql_re' },
    ]);
    const refused = await graphql(
      `mutation ($number: SafeInt!) { recordRefund(number: $number, input: { amount: 1, reference: "gql_re2" }) { version } }`,
      { number },
    );
    expect(refused.body.errors[0].extensions.code).toBe('INVALID_STATE');
  });

  it('filters lists by billingStatus exactly as each read reports it, over REST and GraphQL', async () => {
    const own = await client.request('POST', '/api/v1/organization', {
      token,
      body: { name: 'Billing filters', legalName: 'BF LLC', legalType: 'llc', taxId: '12-3456789', parentId: organizationId },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const made: number[] = [];
    // settled, due (within the grace), past due, credit; pending (nothing billed: settled), and a past-due one paid in part.
    const plans: Array<[start: number, paid: number]> = [
      [0, PLUS],
      [-3, 0],
      [-40, 0],
      [0, PLUS + 1],
      [20, 0],
      [-70, PLUS],
    ];
    for (const [start, paid] of plans) {
      const { number } = await create({
        organizationId: own.body.id,
        effectiveDate: addDays(todayUtc(), start),
        expirationDate: addMonthsClamped(addDays(todayUtc(), start), 12),
      });
      if (paid > 0) expect((await pay(number, { amount: paid, reference: `f_${number}` })).status).toBe(200);
      made.push(number);
    }
    const statuses = new Map<number, string>();
    for (const number of made) statuses.set(number, (await read(number)).billing.status);
    expect(new Set(statuses.values())).toEqual(new Set(['settled', 'due', 'past_due', 'credit']));
    for (const status of ['settled', 'due', 'past_due', 'credit']) {
      const expected = made.filter((number) => statuses.get(number) === status);
      const rest = await client.request('GET', `/api/v1/policy?organizationId=${own.body.id}&billingStatus=${status}&limit=100`, { token });
      expect(
        rest.body.data.map((item: { number: number }) => item.number),
        status,
      ).toEqual(expected);
      const gql = await client.request('POST', '/graphql', {
        token,
        body: {
          query: `query ($id: ID!, $s: BillingStatus) { organization(id: $id) { policies(first: 100, billingStatus: $s) { edges { node { number } } } } }`,
          variables: { id: own.body.id, s: status },
        },
      });
      expect(gql.body.data.organization.policies.edges.map((edge: { node: { number: number } }) => edge.node.number)).toEqual(expected);
    }
    const both = await client.request('GET', `/api/v1/policy?organizationId=${own.body.id}&billingStatus=settled&status=pending`, {
      token,
    });
    expect(both.body.data.map((item: { number: number }) => item.number)).toEqual([made[4]]);
    const typo = await client.request('GET', `/api/v1/policy?organizationId=${own.body.id}&billingStatus=pastdue`, { token });
    expect(typo.status).toBe(400);
    expect(typo.body.errors[0]).toEqual({ path: 'billingStatus', message: 'must be one of settled, due, past_due, credit' });
  });
});
