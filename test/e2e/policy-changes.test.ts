import { beforeAll, describe, expect, it } from 'vitest';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { addMonthsClamped } from '../../src/values/calendar-date.js';
import { sumOfAmounts } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { CHANGE, day, policyLifecycle } from '../support/policy-lifecycle.js';
import { clientOf, createRootOrganization, useTestService } from '../support/test-service.js';

/** accident-illness-basic 2900, accident-illness-plus 4200 cents a month. */
const BASIC = 2900;
const PLUS = 4200;

/**
 * Contract section 14, "Change", over REST and GraphQL: what a change sets and charges, when it is
 * in effect, racing changes, a renewal's successor. Refusals and replays, through the operation
 * core: test/in-process/policy-changes.
 */
describe('changing a policy mid-term', () => {
  // The race below sends one caller's requests at once: its in-flight limit is off here (as in policy-cancellation.test.ts).
  const service = useTestService({ RATE_LIMIT_CONCURRENT_REQUESTS: '0', MAX_CONNECTIONS_PER_ADDRESS: '1000' });
  let token: string;
  let organizationId: string;
  const { policy, change, fields, written } = policyLifecycle({ ...clientOf(service), sql: service.sql }, () => token, {
    firstNumber: 9100,
    coverageSlug: 'accident-illness-basic',
  });
  const read = async (number: number) => (await request(service.url, 'GET', `/api/v1/policy/${number}`, { token })).body;
  const transactions = async (number: number) =>
    (await request(service.url, 'GET', `/api/v1/policy/${number}/transactions`, { token })).body.data;

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
    const { charges: _charges, ...withoutCharges } = response.body;
    expect(events[0].data.object).toEqual({ ...withoutCharges, petName: 'Biscuit II', ownerLastname: 'Diaz-Park' });
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
