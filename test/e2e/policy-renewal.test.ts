import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { premiumSchedule } from '../../src/policies/premium-schedule.js';
import { addDays, addMonthsClamped, todayUtc } from '../../src/values/calendar-date.js';
import { policyBody, sumOfAmounts } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { sessionsWaitingOnLocks, waitUntil } from '../support/lock-waits.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/** Today (UTC) plus `offset` days: the window is judged against today, so dates are relative to it. */
const day = (offset: number) => addDays(todayUtc(), offset);

/** accident-illness-basic (the fixture's plan): 2900 cents a month; accident-illness-plus: 4200. */
const BASIC = 2900;
const PLUS = 4200;
const POLICY_FIELDS = `number status renewalOf renewedBy internalID ownerFirstname ownerLastname ownerDOB petName petDOB effectiveDate expirationDate
  organization { id }
  coverage { slug monthlyPremium }
  charges { id type periodStart periodEnd dueDate amount currency status transactionId reverses }`;
const RENEW = `mutation ($number: SafeInt!, $input: RenewPolicyInput!) { renewPolicy(number: $number, input: $input) { ${POLICY_FIELDS} } }`;
const READ = `query ($number: SafeInt!) { policy(number: $number) { ${POLICY_FIELDS} } }`;

/** Contract section 14, "Renew", over REST and GraphQL, with the default 60-day window. */
describe('renewing a policy', () => {
  // The race sends one caller's requests at once: its in-flight limit is off here, as in policy-cancellation.test.ts.
  const service = useTestService({ RATE_LIMIT_CONCURRENT_REQUESTS: '0', MAX_CONNECTIONS_PER_ADDRESS: '1000' });
  let token: string;
  let organizationId: string;
  let nextNumber = 9000;

  /** A policy ending `endOffset` days from today, starting a year (365 days) before that unless said. */
  async function policy(
    endOffset: number,
    overrides: Record<string, unknown> = {},
  ): Promise<{ number: number; effectiveDate: string; expirationDate: string }> {
    const expirationDate = day(endOffset);
    const effectiveDate = day(endOffset - 365);
    const number = nextNumber++;
    const body = policyBody({
      number,
      effectiveDate,
      expirationDate,
      ownerDOB: '1980-04-02',
      petDOB: '2020-03-03',
      internalID: `old-${number}`,
      ...overrides,
    });
    const created = await request(service.url, 'POST', '/api/v1/policy', { token, body });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return { number, effectiveDate: body.effectiveDate as string, expirationDate: body.expirationDate as string };
  }

  const renew = (number: number, body: object, headers: Record<string, string> = {}, as = token) =>
    request(service.url, 'POST', `/api/v1/policy/${number}/renewal`, { token: as, body, headers });
  const read = async (number: number) => (await graphql(service.url, READ, { number }, token)).body.data.policy;
  const policyCount = async () => (await service.sql<{ n: number }>('select count(*)::int as n from policy'))[0].n;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  it('renews over REST: a successor for a year from the old expirationDate, at the plan, linked both ways, one renewal transaction, one event', async () => {
    const old = await policy(30);
    const response = await renew(old.number, {});
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const successor = response.body;
    expect(successor.number).not.toBe(old.number);
    expect(successor).toMatchObject({
      status: 'pending',
      renewalOf: old.number,
      renewedBy: null,
      cancellation: null,
      organization: { id: organizationId },
    });
    expect(successor.coverage).toMatchObject({ slug: 'accident-illness-basic', monthlyPremium: BASIC });
    const effectiveDate = old.expirationDate;
    const expirationDate = addMonthsClamped(old.expirationDate, 12);
    const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: BASIC, currency: 'USD' });
    expect(
      successor.charges.map(({ type, periodStart, periodEnd, dueDate, amount, currency, status }: Record<string, unknown>) => ({
        type,
        periodStart,
        periodEnd,
        dueDate,
        amount,
        currency,
        status,
      })),
    ).toEqual(schedule);

    // The REST read answers what the renewal answered; the old policy now names its successor.
    expect((await request(service.url, 'GET', `/api/v1/policy/${successor.number}`, { token })).body).toEqual(successor);
    const oldRead = await request(service.url, 'GET', `/api/v1/policy/${old.number}`, { token });
    expect(oldRead.body).toMatchObject({ renewalOf: null, renewedBy: successor.number, status: 'active' });

    // The successor's own fields (GraphQL shows them all): the owner and pet as before, the term, no internalID.
    expect(await read(successor.number)).toMatchObject({
      ownerFirstname: 'Rosa',
      ownerLastname: 'Diaz',
      ownerDOB: '1980-04-02',
      petName: 'Biscuit',
      petDOB: '2020-03-03',
      effectiveDate,
      expirationDate,
      internalID: null,
      renewalOf: old.number,
      renewedBy: null,
    });

    // Its first and only transaction is the renewal, owning every charge.
    const transactions = (await request(service.url, 'GET', `/api/v1/policy/${successor.number}/transactions`, { token })).body.data;
    expect(transactions).toEqual([
      expect.objectContaining({
        type: 'renewal',
        effectiveDate,
        createdBy: 'alice',
        changes: { renewalOf: { from: null, to: old.number } },
      }),
    ]);
    expect(new Set(successor.charges.map((charge: { transactionId: string }) => charge.transactionId))).toEqual(
      new Set([transactions[0].id]),
    );
    // The old policy's ledger is untouched.
    const oldTransactions = (await request(service.url, 'GET', `/api/v1/policy/${old.number}/transactions`, { token })).body.data;
    expect(oldTransactions.map((transaction: { type: string }) => transaction.type)).toEqual(['issuance']);

    // Lists show the links too.
    const listed = (await request(service.url, 'GET', '/api/v1/policy?limit=100', { token })).body.data;
    expect(listed.find((item: { number: number }) => item.number === old.number)).toMatchObject({
      renewalOf: null,
      renewedBy: successor.number,
    });
    expect(listed.find((item: { number: number }) => item.number === successor.number)).toMatchObject({
      renewalOf: old.number,
      renewedBy: null,
    });
    const page = await graphql(
      service.url,
      `query ($id: ID!) { organization(id: $id) { policies(first: 100) { edges { node { number renewalOf renewedBy } } } } }`,
      { id: organizationId },
      token,
    );
    const nodes = page.body.data.organization.policies.edges.map((edge: { node: object }) => edge.node);
    expect(nodes).toEqual(
      expect.arrayContaining([
        { number: old.number, renewalOf: null, renewedBy: successor.number },
        { number: successor.number, renewalOf: old.number, renewedBy: null },
      ]),
    );

    // One policy.renewed event, its object the new policy; no policy.created for it.
    const events = await service.sql<{ type: string; organization_id: string; data: { object: Record<string, unknown> } }>(
      "select type, organization_id, data from event where (data->'object'->>'number')::bigint = $1",
      [successor.number],
    );
    expect(events.map((event) => event.type)).toEqual(['policy.renewed']);
    expect(events[0].organization_id).toBe(organizationId);
    expect(events[0].data.object).toMatchObject({
      ...successor,
      ownerFirstname: 'Rosa',
      petName: 'Biscuit',
      effectiveDate,
      expirationDate,
    });
  });

  it('renews through GraphQL on the plan asked for, at its price', async () => {
    const old = await policy(10);
    const response = await graphql(service.url, RENEW, { number: old.number, input: { coverageSlug: 'accident-illness-plus' } }, token);
    expect(response.body.errors).toBeUndefined();
    const successor = response.body.data.renewPolicy;
    expect(successor).toMatchObject({
      renewalOf: old.number,
      renewedBy: null,
      coverage: { slug: 'accident-illness-plus', monthlyPremium: PLUS },
      effectiveDate: old.expirationDate,
    });
    expect(sumOfAmounts(successor.charges)).toBe(12 * PLUS);
    expect((await read(old.number)).renewedBy).toBe(successor.number);
    expect((await read(old.number)).coverage).toEqual({ slug: 'accident-illness-basic', monthlyPremium: BASIC });
    const [transaction] = (await request(service.url, 'GET', `/api/v1/policy/${successor.number}/transactions`, { token })).body.data;
    expect(transaction.changes).toEqual({
      renewalOf: { from: null, to: old.number },
      coverageSlug: { from: 'accident-illness-basic', to: 'accident-illness-plus' },
    });
  });

  it('copies the owner and pet as the last change left them, even a change dated after today: the successor starts when the term ends', async () => {
    const old = await policy(20);
    const changed = await request(service.url, 'POST', `/api/v1/policy/${old.number}/changes`, {
      token,
      body: { effectiveDate: day(5), petName: 'Renamed', ownerLastname: 'Married' },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    // Today the old policy still reads its first names; from day 5 on, the new ones.
    expect(await read(old.number)).toMatchObject({ petName: 'Biscuit', ownerLastname: 'Diaz' });
    const response = await graphql(service.url, RENEW, { number: old.number, input: {} }, token);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.renewPolicy).toMatchObject({ renewalOf: old.number, petName: 'Renamed', ownerLastname: 'Married' });
  });

  it("prices at today's catalog: a plan repriced after the old policy was written renews at its new price; the old keeps its own", async () => {
    const old = await policy(20);
    await service.sql("update coverage_plan set monthly_premium = 3150 where slug = 'accident-illness-basic'");
    try {
      const response = await renew(old.number, {});
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body.coverage).toMatchObject({ slug: 'accident-illness-basic', monthlyPremium: 3150 });
      expect(response.body.charges.map((charge: { amount: number }) => charge.amount)).toEqual(Array(12).fill(3150));
      const oldRead = (await request(service.url, 'GET', `/api/v1/policy/${old.number}`, { token })).body;
      expect(oldRead.coverage.monthlyPremium).toBe(BASIC);
      expect(sumOfAmounts(oldRead.charges)).toBe(12 * BASIC);
    } finally {
      await service.sql(`update coverage_plan set monthly_premium = ${BASIC} where slug = 'accident-illness-basic'`);
    }
  });

  it('takes a given number (409 CONFLICT when taken, nothing written); a number is never reused', async () => {
    const old = await policy(5);
    const taken = await renew(old.number, { number: old.number });
    expect([taken.status, taken.body.code]).toEqual([409, 'CONFLICT']);
    expect((await read(old.number)).renewedBy).toBeNull();
    const chosen = 9_876_543;
    const response = await renew(old.number, { number: chosen });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ number: chosen, renewalOf: old.number });
    expect((await read(old.number)).renewedBy).toBe(chosen);
  });

  it('opens the window POLICY_RENEWAL_WINDOW_DAYS (60) before expirationDate: 61 days out is 409 saying when it opens, 60 is allowed', async () => {
    const early = await policy(61);
    const before = await policyCount();
    const refused = await renew(early.number, {});
    expect([refused.status, refused.body.code]).toEqual([409, 'INVALID_STATE']);
    expect(refused.body.detail).toContain(`can be renewed from ${day(1)}`);
    const viaGraphql = await graphql(service.url, RENEW, { number: early.number, input: {} }, token);
    expect(viaGraphql.body.errors[0].extensions.code).toBe('INVALID_STATE');
    expect(await policyCount()).toBe(before);

    const opening = await policy(60);
    expect((await renew(opening.number, {})).status).toBe(200);
  });

  it('renews an expired (not cancelled) policy: the window has no end; Feb 29 gives Feb 28 a year later', async () => {
    const old = await policy(0, { effectiveDate: '2023-03-01', expirationDate: '2024-02-29' });
    expect((await read(old.number)).status).toBe('expired');
    const response = await graphql(service.url, RENEW, { number: old.number, input: {} }, token);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.renewPolicy).toMatchObject({
      effectiveDate: '2024-02-29',
      expirationDate: '2025-02-28',
      status: 'expired',
      renewalOf: old.number,
    });
    expect(response.body.data.renewPolicy.charges).toHaveLength(12);
  });

  it('409 INVALID_STATE: cancelled, a cancellation scheduled, already renewed; a renewed policy can still be cancelled', async () => {
    const cancelled = await policy(30);
    expect(
      (
        await request(service.url, 'POST', `/api/v1/policy/${cancelled.number}/cancellation`, {
          token,
          body: { effectiveDate: day(-1), reason: 'other' },
        })
      ).status,
    ).toBe(200);
    const scheduled = await policy(30);
    expect(
      (
        await request(service.url, 'POST', `/api/v1/policy/${scheduled.number}/cancellation`, {
          token,
          body: { effectiveDate: day(10), reason: 'other' },
        })
      ).status,
    ).toBe(200);
    const before = await policyCount();
    for (const { number } of [cancelled, scheduled]) {
      const refused = await renew(number, {});
      expect([refused.status, refused.body.code], String(number)).toEqual([409, 'INVALID_STATE']);
      expect(refused.body.detail).toContain('cancellation');
    }
    expect(await policyCount()).toBe(before);

    const renewed = await policy(30);
    const first = await renew(renewed.number, {});
    expect(first.status).toBe(200);
    const second = await renew(renewed.number, { coverageSlug: 'accident-only' });
    expect([second.status, second.body.code]).toEqual([409, 'INVALID_STATE']);
    expect(second.body.detail).toContain(`renewed by policy ${first.body.number}`);

    // Cancelling the old policy mid-term stays allowed; its successor is untouched, and the event shows the link.
    const cancel = await request(service.url, 'POST', `/api/v1/policy/${renewed.number}/cancellation`, {
      token,
      body: { effectiveDate: day(0), reason: 'other' },
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ status: 'cancelled', renewedBy: first.body.number });
    const events = await service.sql<{ data: { object: { renewedBy: number } } }>(
      "select data from event where type = 'policy.cancelled' and (data->'object'->>'number')::bigint = $1",
      [renewed.number],
    );
    expect(events.map((event) => event.data.object.renewedBy)).toEqual([first.body.number]);
    expect((await read(first.body.number)).status).toBe('pending');
  });

  it('400 for an unknown coverageSlug or a bad number, 404 for a policy out of reach or missing; nothing written', async () => {
    const old = await policy(30);
    const before = await policyCount();
    const unknown = await renew(old.number, { coverageSlug: 'gold-plated' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ path: 'coverageSlug', message: expect.stringContaining('catalog') }]);
    const badNumber = await renew(old.number, { number: 0 });
    expect(badNumber.status).toBe(400);
    expect(badNumber.body.errors.map((error: { path: string }) => error.path)).toEqual(['number']);
    const stranger = await service.token({ sub: 'mallory' });
    const foreign = await renew(old.number, {}, {}, stranger);
    expect([foreign.status, foreign.body.code]).toEqual([404, 'NOT_FOUND']);
    const foreignGraphql = await graphql(service.url, RENEW, { number: old.number, input: {} }, stranger);
    expect(foreignGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await renew(99_999_999, {})).status).toBe(404);
    expect(await policyCount()).toBe(before);
    expect((await read(old.number)).renewedBy).toBeNull();
  });

  it('serializes racing renewals: of 10, exactly one 200 and 9 INVALID_STATE, one successor', async () => {
    const old = await policy(30);
    // The requests are held where they write (the test holds the charge table) until two wait on
    // a lock: with the policy's row lock, one at the charges and one at the lock.
    const holder = new pg.Client({ connectionString: service.databaseUrl });
    await holder.connect();
    let responses: Awaited<ReturnType<typeof renew>>[];
    try {
      await holder.query('begin');
      await holder.query('lock table charge in exclusive mode');
      let answered = false;
      const racing = Promise.all(Array.from({ length: 10 }, () => renew(old.number, {})));
      void racing.finally(() => (answered = true));
      await waitUntil(async () => answered || (await sessionsWaitingOnLocks(service)) >= 2);
      await holder.query('commit');
      responses = await racing;
    } finally {
      await holder.end();
    }
    const succeeded = responses.filter((response) => response.status === 200);
    expect(succeeded).toHaveLength(1);
    expect(responses.filter((response) => response.status !== 200).map((response) => `${response.status} ${response.body.code}`)).toEqual(
      Array(9).fill('409 INVALID_STATE'),
    );
    const successors = await service.sql<{ number: string }>(
      'select s.number::text from policy s join policy p on p.id = s.renewal_of where p.number = $1',
      [old.number],
    );
    expect(successors.map((row) => Number(row.number))).toEqual([succeeded[0].body.number]);
  });

  it('replays an Idempotency-Key: the same successor, one renewal; the same key on another policy renews that one', async () => {
    const old = await policy(30);
    const key = randomUUID();
    const first = await renew(old.number, {}, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const again = await renew(old.number, {}, { 'idempotency-key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await renew(old.number, { coverageSlug: 'accident-only' }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    const another = await policy(30);
    const elsewhere = await renew(another.number, {}, { 'idempotency-key': key });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect(elsewhere.body.renewalOf).toBe(another.number);
    // An answer not kept (too large, or lost to a crash before the finish) is rebuilt from the
    // successor the renewal recorded on the key, in its own transaction: the same policy.
    await service.sql('update idempotency_key set body = null, status = null, content_type = null where key = $1', [key]);
    const rebuilt = await renew(another.number, {}, { 'idempotency-key': key });
    expect([rebuilt.status, rebuilt.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(rebuilt.body).toEqual(elsewhere.body);

    // Through GraphQL, with the header.
    const third = await policy(30);
    const body = { query: RENEW, variables: { number: third.number, input: {} } };
    const headers = { 'idempotency-key': randomUUID() };
    const viaGraphql = await request(service.url, 'POST', '/graphql', { token, body, headers });
    expect(viaGraphql.body.errors).toBeUndefined();
    const replayed = await request(service.url, 'POST', '/graphql', { token, body, headers });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(viaGraphql.body);
    const successors = await service.sql('select 1 from policy s join policy p on p.id = s.renewal_of where p.number = any($1::bigint[])', [
      [old.number, third.number],
    ]);
    expect(successors).toHaveLength(2);
  });
});
