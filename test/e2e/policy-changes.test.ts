import { beforeAll, describe, expect, it } from 'vitest';
import { premiumSchedule } from '../../src/policies/premium-schedule.js';
import { addDays, addMonthsClamped, todayUtc } from '../../src/values/calendar-date.js';
import { policyBody, sumOfAmounts } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/** Today (UTC) plus `offset` days: what reads show is judged against today. */
const day = (offset: number) => addDays(todayUtc(), offset);

/** accident-illness-basic 2900, accident-illness-plus 4200 cents a month. */
const BASIC = 2900;
const PLUS = 4200;

const POLICY_FIELDS = `number petName petDOB ownerFirstname ownerLastname ownerDOB coverageSlug status
  coverage { slug monthlyPremium }
  charges { id type periodStart periodEnd dueDate amount transactionId }
  transactions(first: 50) { edges { node { type effectiveDate changes } } }`;
const CHANGE = `mutation ($number: SafeInt!, $input: ChangePolicyInput!) { changePolicy(number: $number, input: $input) { ${POLICY_FIELDS} } }`;

/** Contract section 14, "Change", over REST and GraphQL. */
describe('changing a policy mid-term', () => {
  // The race below sends one caller's requests at once: its in-flight limit is off here (as in policy-cancellation.test.ts).
  const service = useTestService({ RATE_LIMIT_CONCURRENT_REQUESTS: '0', MAX_CONNECTIONS_PER_ADDRESS: '1000' });
  let token: string;
  let organizationId: string;
  let nextNumber = 9100;

  /** A one-year accident-illness-basic policy starting `startOffset` days from today (a year ending 12 billing dates on). */
  async function policy(startOffset: number, overrides: Record<string, unknown> = {}) {
    const effectiveDate = day(startOffset);
    const expirationDate = addMonthsClamped(effectiveDate, 12);
    const number = nextNumber++;
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ number, effectiveDate, expirationDate, ...overrides }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return { number, effectiveDate, expirationDate };
  }
  const change = (number: number, body: object, headers: Record<string, string> = {}) =>
    request(service.url, 'POST', `/api/v1/policy/${number}/changes`, { token, body, headers });
  const read = async (number: number) => (await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body;
  /** The policy's own fields as GraphQL reads them (the REST read carries the same, contract section 18). */
  const fields = async (number: number) =>
    (
      await graphql(
        service.url,
        `{ policy(number: ${number}) { petName petDOB ownerFirstname ownerLastname ownerDOB coverageSlug coverage { slug monthlyPremium } } }`,
        {},
        token,
      )
    ).body.data.policy;
  const transactions = async (number: number) =>
    (await request(service.url, 'GET', `/api/v1/policy/${number}/transactions`, { token })).body.data;
  /** What a refused request must leave as it was: the policy's charges, transactions and events. */
  const written = async (number: number) =>
    (
      await service.sql<{ charges: number; transactions: number; events: number }>(
        `select (select count(*)::int from charge c where c.policy_id = p.id) as charges,
          (select count(*)::int from policy_transaction t where t.policy_id = p.id) as transactions,
          (select count(*)::int from event e where (e.data->'object'->>'number')::bigint = p.number) as events
         from policy p where p.number = $1`,
        [number],
      )
    )[0];

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  it('renames the pet and the owner from today: the answer, the read, the list, the transaction and the event agree', async () => {
    const { number } = await policy(-40);
    const response = await change(number, {
      effectiveDate: day(0),
      petName: 'Biscuit II',
      ownerLastname: 'Diaz-Park',
      ownerFirstname: 'Rosa',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    // ownerFirstname was sent with the value it has: left out of the changes.
    expect(response.body).toMatchObject({ number, status: 'active' });
    expect(response.body.charges).toHaveLength(12);
    expect(await read(number)).toEqual(response.body);
    expect(await fields(number)).toMatchObject({ petName: 'Biscuit II', ownerLastname: 'Diaz-Park', ownerFirstname: 'Rosa' });

    const [issuance, changed] = await transactions(number);
    expect(issuance.type).toBe('issuance');
    expect(changed).toMatchObject({
      type: 'change',
      effectiveDate: day(0),
      createdBy: 'alice',
      changes: { petName: { from: 'Biscuit', to: 'Biscuit II' }, ownerLastname: { from: 'Diaz', to: 'Diaz-Park' } },
    });
    expect(Object.keys(changed.changes).sort()).toEqual(['ownerLastname', 'petName']);

    const listed = await graphql(
      service.url,
      `{ organization(id: "${organizationId}") { policies(first: 100, status: active) { edges { node { number petName ownerLastname } } } } }`,
      {},
      token,
    );
    expect(listed.body.data.organization.policies.edges.map((edge: { node: object }) => edge.node)).toContainEqual({
      number,
      petName: 'Biscuit II',
      ownerLastname: 'Diaz-Park',
    });

    const events = await service.sql<{ data: { object: Record<string, unknown> } }>(
      "select data from event where type = 'policy.changed' and (data->'object'->>'number')::bigint = $1",
      [number],
    );
    expect(events).toHaveLength(1);
    expect(events[0].data.object).toMatchObject({ ...response.body, petName: 'Biscuit II', ownerLastname: 'Diaz-Park' });
  });

  it('keeps a change dated in the future out of reads until its date, while the transactions list shows it', async () => {
    const { number } = await policy(-10);
    const response = await change(number, { effectiveDate: day(5), petName: 'Later' });
    expect(response.status).toBe(200);
    expect((await fields(number)).petName).toBe('Biscuit');
    const answered = await graphql(service.url, CHANGE, { number, input: { effectiveDate: day(5), ownerFirstname: 'Later' } }, token);
    expect(answered.body.data.changePolicy.ownerFirstname).toBe('Rosa');
    // The GraphQL answer, too, shows what is in effect today.
    expect(answered.body.data.changePolicy.petName).toBe('Biscuit');
    expect((await transactions(number)).slice(1)).toMatchObject([
      { type: 'change', effectiveDate: day(5), changes: { petName: { from: 'Biscuit', to: 'Later' } } },
      { type: 'change', effectiveDate: day(5), changes: { ownerFirstname: { from: 'Rosa', to: 'Later' } } },
    ]);
    // A second change's `from` is the value in effect on its date: the first change's, not today's.
    const second = await change(number, { effectiveDate: day(6), petName: 'Later Still' });
    expect(second.status).toBe(200);
    expect((await transactions(number)).at(-1).changes).toEqual({ petName: { from: 'Later', to: 'Later Still' } });
    expect((await fields(number)).petName).toBe('Biscuit');
    // Sending the value the policy will have on that date changes nothing: 400, nothing written.
    const before = await written(number);
    const same = await change(number, { effectiveDate: day(7), petName: 'Later Still' });
    expect(same.status).toBe(400);
    expect(same.body.errors).toEqual([{ path: 'petName', message: expect.stringContaining('already') }]);
    expect(await written(number)).toEqual(before);
  });

  it('changes the plan on a billing date: a credit of -net(P) and a premium at the new price for every later period, the new coverage once in effect', async () => {
    const { number, effectiveDate, expirationDate } = await policy(-70);
    const billing = addMonthsClamped(effectiveDate, 2);
    expect(billing <= day(0)).toBe(true);
    const response = await change(number, { effectiveDate: billing, coverageSlug: 'accident-illness-plus' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const added = response.body.charges.slice(12);
    const schedule = premiumSchedule({ effectiveDate, expirationDate, monthlyPremium: PLUS, currency: 'USD' }).filter(
      (period) => period.periodStart >= billing,
    );
    expect(schedule).toHaveLength(10);
    expect(
      added.map(({ type, periodStart, periodEnd, dueDate, amount }: Record<string, unknown>) => ({
        type,
        periodStart,
        periodEnd,
        dueDate,
        amount,
      })),
    ).toEqual(
      schedule.flatMap(({ periodStart, periodEnd }) => [
        { type: 'credit', periodStart, periodEnd, dueDate: periodStart, amount: -BASIC },
        { type: 'premium', periodStart, periodEnd, dueDate: periodStart, amount: PLUS },
      ]),
    );
    // 2 months of basic, 10 of plus.
    expect(sumOfAmounts(response.body.charges)).toBe(2 * BASIC + 10 * PLUS);
    expect(response.body).toMatchObject({ coverage: { slug: 'accident-illness-plus', monthlyPremium: PLUS } });
    expect(await read(number)).toEqual(response.body);
    expect(await fields(number)).toMatchObject({
      coverageSlug: 'accident-illness-plus',
      coverage: { slug: 'accident-illness-plus', monthlyPremium: PLUS },
    });
    const changed = (await transactions(number)).at(-1);
    expect(changed.changes.coverageSlug).toEqual({ from: 'accident-illness-basic', to: 'accident-illness-plus' });
    expect(changed.changes.coverage.from).toMatchObject({ slug: 'accident-illness-basic', monthlyPremium: BASIC });
    expect(changed.changes.coverage.to).toMatchObject({ slug: 'accident-illness-plus', monthlyPremium: PLUS });

    // A cancellation afterwards credits from net(P), which the change's charges are part of:
    // pro rata from today, every later period's credit is the plus price.
    const cancelled = await request(service.url, 'POST', `/api/v1/policy/${number}/cancellation`, {
      token,
      body: { effectiveDate: addMonthsClamped(effectiveDate, 4), reason: 'other' },
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.cancellation.credited).toBe(-8 * PLUS);
    expect(sumOfAmounts(cancelled.body.charges)).toBe(2 * BASIC + 2 * PLUS);
  });

  it('keeps a plan change dated in the future out of the coverage shown until then', async () => {
    const { number, effectiveDate } = await policy(-5);
    const response = await change(number, { effectiveDate: addMonthsClamped(effectiveDate, 1), coverageSlug: 'accident-only' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ coverage: { slug: 'accident-illness-basic' } });
    expect(await fields(number)).toMatchObject({ coverageSlug: 'accident-illness-basic', coverage: { slug: 'accident-illness-basic' } });
    expect(await read(number)).toEqual(response.body);
    expect(sumOfAmounts(response.body.charges)).toBe(BASIC + 11 * 1200);
  });

  it('refuses a plan change off a billing date, and an unknown plan, with 400 and nothing written', async () => {
    const { number, effectiveDate } = await policy(-20);
    const before = await written(number);
    const off = await change(number, { effectiveDate: addDays(effectiveDate, 35), coverageSlug: 'accident-illness-plus' });
    expect(off.status).toBe(400);
    expect(off.body.errors.map((error: { path: string }) => error.path)).toEqual(['effectiveDate']);
    const unknown = await change(number, { effectiveDate: addMonthsClamped(effectiveDate, 1), coverageSlug: 'gold-plated' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((error: { path: string }) => error.path)).toEqual(['coverageSlug']);
    expect(await written(number)).toEqual(before);
  });

  it("checks the body as the create does: every error at once, at least one field, no nulls; unknown fields ignored as on the policy's other routes", async () => {
    const { number, effectiveDate } = await policy(-20, { petDOB: day(-400) });
    const before = await written(number);
    const bad = await change(number, { effectiveDate: '2026-02-30', petName: '  ', ownerDOB: day(3), petDOB: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['effectiveDate', 'ownerDOB', 'petDOB', 'petName']);
    const nothing = await change(number, { effectiveDate });
    expect(nothing.status).toBe(400);
    expect(nothing.body.errors).toEqual([{ path: '', message: expect.stringContaining('at least one of') }]);
    // The summary names the body when the error is about no one field.
    expect(nothing.body.detail).toBe(
      'Invalid body: must change at least one of petName, petDOB, ownerFirstname, ownerLastname, ownerDOB, coverageSlug',
    );
    const nulls = await change(number, { effectiveDate, petName: null });
    expect(nulls.status).toBe(400);
    expect(nulls.body.errors.map((error: { path: string }) => error.path)).toEqual(['petName']);
    // A pet born after the policy began: the create's rule, against the policy's effectiveDate.
    const unborn = await change(number, { effectiveDate: day(0), petDOB: addDays(effectiveDate, 1) });
    expect(unborn.status).toBe(400);
    expect(unborn.body.errors.map((error: { path: string }) => error.path)).toEqual(['petDOB']);
    expect(await written(number)).toEqual(before);
    // An unknown field is refused (contract section 18), listed with the others, with the field it is near.
    const extra = await change(number, { effectiveDate: day(0), petDob: day(-300), petName: ' ', colour: 'brown' });
    expect(extra.status, JSON.stringify(extra.body)).toBe(400);
    expect(extra.body.errors).toEqual([
      { path: 'petDob', message: 'is not a field of this request; did you mean "petDOB"?' },
      { path: 'colour', message: 'is not a field of this request' },
      { path: 'petName', message: expect.any(String) },
    ]);
    expect(await written(number)).toEqual(before);
    const fixed = await change(number, { effectiveDate: day(0), petDOB: day(-300) });
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(200);
    expect((await fields(number)).petDOB).toBe(day(-300));
  });

  it('refuses with 409 INVALID_STATE, writing nothing: a cancellation in force or scheduled, expired, a date outside the term or before the latest transaction', async () => {
    const cancelled = await policy(-20);
    expect(
      (
        await request(service.url, 'POST', `/api/v1/policy/${cancelled.number}/cancellation`, {
          token,
          body: { effectiveDate: day(10), reason: 'other' },
        })
      ).status,
    ).toBe(200);
    const expired = await policy(-400);
    const dated = await policy(-20);
    expect((await change(dated.number, { effectiveDate: day(3), petName: 'Three' })).status).toBe(200);
    const cases: Array<[number, object]> = [
      [cancelled.number, { effectiveDate: day(11), petName: 'Nope' }],
      [expired.number, { effectiveDate: day(-390), petName: 'Nope' }],
      [dated.number, { effectiveDate: day(2), petName: 'Nope' }],
      [dated.number, { effectiveDate: addMonthsClamped(dated.effectiveDate, 12), petName: 'Nope' }],
    ];
    for (const [number, body] of cases) {
      const before = await written(number);
      const response = await change(number, body);
      expect(response.status, JSON.stringify(body)).toBe(409);
      expect(response.body.code).toBe('INVALID_STATE');
      expect(await written(number)).toEqual(before);
    }
    // Reinstated, the policy can be changed again (from the cancellation's date on).
    expect((await request(service.url, 'POST', `/api/v1/policy/${cancelled.number}/reinstatement`, { token, body: {} })).status).toBe(200);
    expect((await change(cancelled.number, { effectiveDate: day(10), petName: 'Back' })).status).toBe(200);
  });

  it('changes through GraphQL, replays an Idempotency-Key with one transaction, and scopes the key to the policy in the path', async () => {
    const { number, effectiveDate } = await policy(-3);
    const input = { effectiveDate: addMonthsClamped(effectiveDate, 1), coverageSlug: 'accident-illness-unlimited', ownerDOB: '1990-04-01' };
    const headers = { 'idempotency-key': `change-${number}` };
    const response = await request(service.url, 'POST', '/graphql', {
      token,
      body: { query: CHANGE, variables: { number, input } },
      headers,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const answer = response.body.data.changePolicy;
    expect(answer.ownerDOB).toBeNull();
    expect(answer.transactions.edges.at(-1).node).toMatchObject({
      type: 'change',
      changes: { ownerDOB: { from: null, to: '1990-04-01' } },
    });
    const replay = await request(service.url, 'POST', '/graphql', {
      token,
      body: { query: CHANGE, variables: { number, input } },
      headers,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.changePolicy).toEqual(answer);
    // The same key on another policy is that policy's change, not a replay.
    const other = await policy(-3);
    const elsewhere = await change(other.number, input, { 'idempotency-key': `change-${number}` });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
    expect(elsewhere.body.number).toBe(other.number);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect((await written(number)).transactions).toBe(2);
  });

  it("serializes racing changes on one policy: each is written, and each one's from is the value the one before it left", async () => {
    const { number } = await policy(-10);
    const names = Array.from({ length: 8 }, (_, index) => `Racer ${index}`);
    const responses = await Promise.all(names.map((petName) => change(number, { effectiveDate: day(0), petName })));
    expect(responses.map((response) => response.status)).toEqual(names.map(() => 200));
    const changes = (await transactions(number))
      .slice(1)
      .map((transaction: { changes: { petName: { from: string; to: string } } }) => transaction.changes.petName);
    expect(changes).toHaveLength(8);
    // One chain from the issued name through every racer's, in the order the lock let them in.
    expect(changes[0].from).toBe('Biscuit');
    for (let index = 1; index < changes.length; index++) expect(changes[index].from).toBe(changes[index - 1].to);
    expect(new Set(changes.map((petName: { to: string }) => petName.to))).toEqual(new Set(names));
    expect((await fields(number)).petName).toBe(changes.at(-1).to);
  });

  it("changes a renewal's successor on its billing dates, and cancels it with credits: its schedule is its renewal's premiums", async () => {
    const { number, expirationDate } = await policy(-340);
    const renewed = await request(service.url, 'POST', `/api/v1/policy/${number}/renewal`, { token, body: {} });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    const successor = renewed.body.number;
    const billing = addMonthsClamped(expirationDate, 3);
    const changed = await change(successor, { effectiveDate: billing, coverageSlug: 'accident-illness-plus' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(sumOfAmounts(changed.body.charges)).toBe(3 * BASIC + 9 * PLUS);
    const cancelled = await request(service.url, 'POST', `/api/v1/policy/${successor}/cancellation`, {
      token,
      body: { effectiveDate: addMonthsClamped(expirationDate, 6), reason: 'other' },
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.cancellation.credited).toBe(-6 * PLUS);
  });
});
