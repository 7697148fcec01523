import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { cancellationCharges } from '../../src/policies/cancellation-charges.js';
import { premiumSchedule } from '../../src/policies/premium-schedule.js';
import { addMonthsClamped, todayUtc } from '../../src/values/calendar-date.js';
import { organizationBody, policyBody, sumOfAmounts } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { sessionsWaitingOnLocks, waitUntil } from '../support/lock-waits.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/** Today (UTC) plus `offset` days. Status and the windows are judged against today, so dates are relative to it. */
const day = (offset: number) => new Date(Date.parse(`${todayUtc()}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

/** accident-illness-plus: 4200 cents a month. */
const PLUS = 4200;
const POLICY_FIELDS = `number status cancellation { effectiveDate reason method credited fee createdAt }
  charges { id type periodStart periodEnd dueDate amount currency status transactionId reverses }`;
const CANCEL = `mutation ($number: SafeInt!, $input: CancelPolicyInput!) { cancelPolicy(number: $number, input: $input) { ${POLICY_FIELDS} } }`;
const REINSTATE = `mutation ($number: SafeInt!, $input: ReinstatePolicyInput!) { reinstatePolicy(number: $number, input: $input) { ${POLICY_FIELDS} } }`;

/** Contract section 14, "Cancel" and "Reinstate", over REST and GraphQL. */
describe('cancelling and reinstating a policy', () => {
  // The race below sends one caller's 20 requests at once: its in-flight limit is off here
  // (tested in rate-limits.test.ts), as in concurrency.test.ts.
  const service = useTestService({ RATE_LIMIT_CONCURRENT_REQUESTS: '0', MAX_CONNECTIONS_PER_ADDRESS: '1000' });
  let token: string;
  let organizationId: string;
  let nextNumber = 7000;

  /** A one-year accident-illness-plus policy starting `startOffset` days from today. */
  async function policy(
    startOffset: number,
    overrides: Record<string, unknown> = {},
  ): Promise<{ number: number; effectiveDate: string; expirationDate: string }> {
    const effectiveDate = day(startOffset);
    const expirationDate = addMonthsClamped(effectiveDate, 12);
    const number = nextNumber++;
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ number, effectiveDate, expirationDate, coverageSlug: 'accident-illness-plus', ...overrides }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return { number, effectiveDate, expirationDate };
  }

  const cancel = (number: number, body: object, headers: Record<string, string> = {}) =>
    request(service.url, 'POST', `/api/v1/policy/${number}/cancellation`, { token, body, headers });
  const reinstate = (number: number, headers: Record<string, string> = {}) =>
    request(service.url, 'POST', `/api/v1/policy/${number}/reinstatement`, { token, body: {}, headers });
  const ledgerCount = async (number: number) =>
    (
      await service.sql<{ n: number }>('select count(*)::int as n from charge c join policy p on p.id = c.policy_id where p.number = $1', [
        number,
      ])
    )[0].n;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  it('cancels pro_rata over REST: a credit per running period, status cancelled, the transaction, the event, and reads agree', async () => {
    const { number, effectiveDate, expirationDate } = await policy(-100);
    const on = day(-5);
    const response = await cancel(number, { effectiveDate: on, reason: 'non_payment' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);

    const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: PLUS, currency: 'USD' });
    const expected = cancellationCharges({
      schedule,
      ledger: schedule,
      effectiveDate: on,
      expirationDate,
      method: 'pro_rata',
      shortRatePercent: 10,
    });
    const policyRead = response.body;
    expect(policyRead.status).toBe('cancelled');
    expect(policyRead.cancellation).toEqual({
      effectiveDate: on,
      reason: 'non_payment',
      method: 'pro_rata',
      credited: expected.credited,
      fee: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const credits = policyRead.charges.filter((charge: { type: string }) => charge.type === 'credit');
    expect(
      credits.map(({ periodStart, periodEnd, dueDate, amount }: Record<string, unknown>) => ({
        type: 'credit',
        periodStart,
        periodEnd,
        dueDate,
        amount,
      })),
    ).toEqual(expected.lines);
    expect(sumOfAmounts(policyRead.charges)).toBe(PLUS * 12 + expected.credited);
    expect(new Set(credits.map((charge: { transactionId: string }) => charge.transactionId)).size).toBe(1);

    const read = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
    expect(read.body).toEqual(policyRead);
    const transactions = await request(service.url, 'GET', `/api/v1/policy/${number}/transactions`, { token });
    expect(transactions.body.data.map((transaction: { type: string }) => transaction.type)).toEqual(['issuance', 'cancellation']);
    expect(transactions.body.data[1]).toMatchObject({
      id: credits[0].transactionId,
      effectiveDate: on,
      createdBy: 'alice',
      changes: { cancellation: { from: null, to: { effectiveDate: on, reason: 'non_payment', method: 'pro_rata' } } },
    });
    const listed = async (status: string) =>
      (await request(service.url, 'GET', `/api/v1/policy?status=${status}&limit=100`, { token })).body.data.map(
        (item: { number: number }) => item.number,
      );
    expect(await listed('cancelled')).toContain(number);
    expect(await listed('active')).not.toContain(number);
    const events = await service.sql<{ data: { object: { number: number; status: string } } }>(
      "select data from event where type = 'policy.cancelled' and (data->'object'->>'number')::bigint = $1",
      [number],
    );
    expect(events.map((event) => event.data.object.status)).toEqual(['cancelled']);
    // The answer and the event are made from what was read and written; a read agrees with both
    // (the event's object has every field of the policy, the REST read a part).
    expect(events[0].data.object).toMatchObject(read.body);
  });

  it('keeps a future cancellation on the policy while it stays active', async () => {
    const { number } = await policy(-10);
    const response = await cancel(number, { effectiveDate: day(20), reason: 'underwriting' });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('active');
    expect(response.body.cancellation).toMatchObject({ effectiveDate: day(20), reason: 'underwriting', method: 'pro_rata' });
    const active = await request(service.url, 'GET', `/api/v1/policy?status=active&limit=100`, { token });
    expect(active.body.data.map((item: { number: number }) => item.number)).toContain(number);
    // One is scheduled: another is refused.
    const again = await cancel(number, { effectiveDate: day(25), reason: 'other' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('INVALID_STATE');
  });

  it('cancels short_rate through GraphQL: the credits and a fee of 10% of them, due on the date', async () => {
    const { number, effectiveDate, expirationDate } = await policy(-40);
    const on = day(-3);
    const response = await graphql(service.url, CANCEL, { number, input: { effectiveDate: on, reason: 'insured_request' } }, token);
    expect(response.body.errors).toBeUndefined();
    const answer = response.body.data.cancelPolicy;
    const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: PLUS, currency: 'USD' });
    const expected = cancellationCharges({
      schedule,
      ledger: schedule,
      effectiveDate: on,
      expirationDate,
      method: 'short_rate',
      shortRatePercent: 10,
    });
    expect(answer.cancellation).toMatchObject({
      method: 'short_rate',
      credited: expected.credited,
      fee: Math.round(-expected.credited / 10),
    });
    expect(answer.charges.filter((charge: { type: string }) => charge.type === 'fee')).toEqual([
      expect.objectContaining({ amount: expected.fee, dueDate: on, periodStart: on, periodEnd: expirationDate }),
    ]);
    expect(sumOfAmounts(answer.charges)).toBe(PLUS * 12 + expected.credited + expected.fee);
  });

  it('free_look on day 10 credits everything (flat); on day 20 it is 400 on reason and writes nothing', async () => {
    const early = await policy(-10);
    const flat = await cancel(early.number, { effectiveDate: day(0), reason: 'free_look' });
    expect(flat.status, JSON.stringify(flat.body)).toBe(200);
    expect(flat.body.cancellation).toMatchObject({ method: 'flat', credited: -PLUS * 12, fee: 0 });
    expect(sumOfAmounts(flat.body.charges)).toBe(0);

    const late = await policy(-20);
    const before = await ledgerCount(late.number);
    const refused = await cancel(late.number, { effectiveDate: day(0), reason: 'free_look' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'reason', message: expect.stringContaining('15 days') }]);
    expect(await ledgerCount(late.number)).toBe(before);
  });

  it('refuses bad bodies with 400 on the fields, and a missing policy with 404', async () => {
    const { number } = await policy(-10);
    const bad = await cancel(number, { effectiveDate: '2026-02-30', reason: 'bored' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['effectiveDate', 'reason']);
    expect((await cancel(99_999_999, { effectiveDate: day(0), reason: 'other' })).status).toBe(404);
    expect(
      (
        await request(service.url, 'POST', '/api/v1/policy/not-a-number/cancellation', {
          token,
          body: { effectiveDate: day(0), reason: 'other' },
        })
      ).status,
    ).toBe(404);
    const stranger = await service.token({ sub: 'mallory' });
    const foreign = await request(service.url, 'POST', `/api/v1/policy/${number}/cancellation`, {
      token: stranger,
      body: { effectiveDate: day(0), reason: 'other' },
    });
    expect(foreign.status).toBe(404);
    const foreignReinstate = await request(service.url, 'POST', `/api/v1/policy/${number}/reinstatement`, { token: stranger, body: {} });
    expect(foreignReinstate.status).toBe(404);
  });

  it('409 INVALID_STATE: already cancelled, expired, a date outside the term or before the latest transaction', async () => {
    const cancelled = await policy(-50);
    expect((await cancel(cancelled.number, { effectiveDate: day(-1), reason: 'other' })).status).toBe(200);
    const twice = await cancel(cancelled.number, { effectiveDate: day(0), reason: 'other' });
    expect([twice.status, twice.body.code]).toEqual([409, 'INVALID_STATE']);

    const expired = await policy(-400);
    const late = await cancel(expired.number, { effectiveDate: day(-100), reason: 'other' });
    expect([late.status, late.body.code]).toEqual([409, 'INVALID_STATE']);

    const { number, effectiveDate, expirationDate } = await policy(-10);
    for (const effective of [day(-11), expirationDate]) {
      const outside = await cancel(number, { effectiveDate: effective, reason: 'other' });
      expect([outside.status, outside.body.code], effective).toEqual([409, 'INVALID_STATE']);
    }
    // After a cancellation on day 5 and its reinstatement (effective on day 5), day 3 is before the latest transaction.
    expect((await cancel(number, { effectiveDate: day(5), reason: 'other' })).status).toBe(200);
    expect((await reinstate(number)).status).toBe(200);
    const before = await cancel(number, { effectiveDate: day(3), reason: 'other' });
    expect([before.status, before.body.code]).toEqual([409, 'INVALID_STATE']);
    expect(effectiveDate).toBe(day(-10));
  });

  it('reinstates over REST: a reversal of each charge of the cancellation, the sum as before, no cancellation, the event', async () => {
    const { number } = await policy(-60);
    const before = sumOfAmounts((await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body.charges);
    const cancelled = await cancel(number, { effectiveDate: day(-30), reason: 'insured_request' });
    expect(cancelled.status).toBe(200);
    const added = cancelled.body.charges.filter((charge: { type: string }) => charge.type !== 'premium');

    const response = await reinstate(number);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.cancellation).toBeNull();
    expect(response.body.status).toBe('active');
    expect(sumOfAmounts(response.body.charges)).toBe(before);
    const reversals = response.body.charges.filter((charge: { type: string }) => charge.type === 'reversal');
    expect(reversals.map(({ reverses, amount }: { reverses: string; amount: number }) => [reverses, amount])).toEqual(
      added.map(({ id, amount }: { id: string; amount: number }) => [id, -amount]),
    );
    const transactions = await request(service.url, 'GET', `/api/v1/policy/${number}/transactions`, { token });
    expect(transactions.body.data.map((transaction: { type: string }) => transaction.type)).toEqual([
      'issuance',
      'cancellation',
      'reinstatement',
    ]);
    expect(transactions.body.data[2]).toMatchObject({ id: reversals[0].transactionId, effectiveDate: day(-30) });
    const events = await service.sql<{ data: { object: object } }>(
      "select data from event where type = 'policy.reinstated' and (data->'object'->>'number')::bigint = $1",
      [number],
    );
    expect(events).toHaveLength(1);
    const read = (await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body;
    expect(response.body).toEqual(read);
    expect(events[0].data.object).toMatchObject(read);
    // Nothing left to undo.
    const again = await reinstate(number);
    expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE']);
  });

  it('reinstates through GraphQL a future cancellation; refuses one 31 days old and one for fraud', async () => {
    const future = await policy(-10);
    await cancel(future.number, { effectiveDate: day(10), reason: 'other' });
    const response = await graphql(service.url, REINSTATE, { number: future.number, input: {} }, token);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.reinstatePolicy).toMatchObject({ status: 'active', cancellation: null });

    const old = await policy(-100);
    expect((await cancel(old.number, { effectiveDate: day(-31), reason: 'other' })).status).toBe(200);
    const tooLate = await graphql(service.url, REINSTATE, { number: old.number, input: {} }, token);
    expect(tooLate.body.errors[0].extensions.code).toBe('INVALID_STATE');
    expect((await reinstate(old.number)).status).toBe(409);

    const fraud = await policy(-10);
    expect((await cancel(fraud.number, { effectiveDate: day(5), reason: 'fraud' })).status).toBe(200);
    expect((await reinstate(fraud.number)).status).toBe(409);
  });

  it('serializes racing cancellations: of 20, exactly one 200 and 19 INVALID_STATE, one set of credits', async () => {
    const { number } = await policy(-45);
    // The requests are held where they write their charges (the test holds the charge table;
    // reads stay open) until two of them wait on a lock. With the policy's row lock that is one
    // at the charges and one at the lock; without it, both at the charges, both having read a
    // ledger without a cancellation, and both would write one (the second fails: a 500).
    const holder = new pg.Client({ connectionString: service.databaseUrl });
    await holder.connect();
    let responses: Awaited<ReturnType<typeof cancel>>[];
    try {
      await holder.query('begin');
      await holder.query('lock table charge in exclusive mode');
      let answered = false;
      const racing = Promise.all(Array.from({ length: 20 }, (_, index) => cancel(number, { effectiveDate: day(-index), reason: 'other' })));
      void racing.finally(() => (answered = true));
      // (Should they all be answered first, something else refused them: the assertions below say what.)
      await waitUntil(async () => answered || (await sessionsWaitingOnLocks(service)) >= 2);
      await holder.query('commit');
      responses = await racing;
    } finally {
      await holder.end();
    }
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    const refused = responses.filter((response) => response.status !== 200);
    expect(refused.map((response) => `${response.status} ${response.body.code}`)).toEqual(Array(19).fill('409 INVALID_STATE'));
    const transactions = await service.sql(
      "select t.id from policy_transaction t join policy p on p.id = t.policy_id where p.number = $1 and t.type = 'cancellation'",
      [number],
    );
    expect(transactions).toHaveLength(1);
    const credits = await service.sql<{ transaction_id: string }>(
      "select c.transaction_id from charge c join policy p on p.id = c.policy_id where p.number = $1 and c.type = 'credit'",
      [number],
    );
    expect(new Set(credits.map((credit) => credit.transaction_id))).toEqual(new Set([transactions[0].id]));
  });

  it('replays an Idempotency-Key: the same answer, one cancellation; the reinstatement likewise', async () => {
    const { number } = await policy(-30);
    const key = randomUUID();
    const body = { effectiveDate: day(-1), reason: 'other' };
    const first = await cancel(number, body, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const again = await cancel(number, body, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await cancel(number, { ...body, reason: 'underwriting' }, { 'idempotency-key': key });
    expect(other.status).toBe(422);

    const reinstateKey = randomUUID();
    const reinstated = await reinstate(number, { 'idempotency-key': reinstateKey });
    expect(reinstated.status).toBe(200);
    const replayed = await reinstate(number, { 'idempotency-key': reinstateKey });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(reinstated.body);
    // The same key on another policy is another request, not a replay of this one.
    const another = await policy(-30);
    await cancel(another.number, body);
    const elsewhere = await reinstate(another.number, { 'idempotency-key': reinstateKey });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.body.number).toBe(another.number);
    const counts = await service.sql<{ type: string; n: number }>(
      'select t.type, count(*)::int as n from policy_transaction t join policy p on p.id = t.policy_id where p.number = $1 group by t.type order by t.type',
      [number],
    );
    expect(counts).toEqual([
      { type: 'cancellation', n: 1 },
      { type: 'issuance', n: 1 },
      { type: 'reinstatement', n: 1 },
    ]);
  });

  it('replays an Idempotency-Key on cancelPolicy through GraphQL', async () => {
    const { number } = await policy(-30);
    const body = { query: CANCEL, variables: { number, input: { effectiveDate: day(-2), reason: 'other' } } };
    const headers = { 'idempotency-key': randomUUID() };
    const first = await request(service.url, 'POST', '/graphql', { token, body, headers });
    expect(first.body.errors).toBeUndefined();
    const again = await request(service.url, 'POST', '/graphql', { token, body, headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await ledgerCount(number)).toBe(first.body.data.cancelPolicy.charges.length);
  });

  it("a descendant's token cannot cancel its ancestor's policy (404), the ancestor's can cancel the descendant's", async () => {
    const child = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationBody({ parentId: organizationId }),
    });
    expect(child.status).toBe(200);
    const childToken = await service.token({ sub: 'someone', org: child.body.id });
    const parentPolicy = await policy(-10);
    const refused = await request(service.url, 'POST', `/api/v1/policy/${parentPolicy.number}/cancellation`, {
      token: childToken,
      body: { effectiveDate: day(0), reason: 'other' },
    });
    expect(refused.status).toBe(404);
    expect(await ledgerCount(parentPolicy.number)).toBe(12);
    const childPolicy = await policy(-10, { organizationId: child.body.id });
    expect((await cancel(childPolicy.number, { effectiveDate: day(0), reason: 'other' })).status).toBe(200);
  });
});
