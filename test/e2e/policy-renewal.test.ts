import { beforeAll, describe, expect, it } from 'vitest';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { addMonthsClamped } from '../../src/values/calendar-date.js';
import { sumOfAmounts } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { RENEW, day, policyRenewals } from '../support/policy-lifecycle.js';
import { clientOf, createRootOrganization, useTestService } from '../support/test-service.js';

/** accident-illness-basic (the fixture's plan): 2900 cents a month; accident-illness-plus: 4200. */
const BASIC = 2900;
const PLUS = 4200;
/**
 * Contract section 14, "Renew", over REST and GraphQL, with the default window (60 days before
 * expiry to 30 after): the
 * successor, its price and schedule, what it copies. Refusals, the window, races and replays,
 * through the operation core: test/in-process/policy-renewal.
 */
describe('renewing a policy', () => {
  const service = useTestService();
  let token: string;
  let organizationId: string;
  const { policy, renew, read } = policyRenewals({ ...clientOf(service), sql: service.sql }, () => token, 9000);

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
    const events = await service.sql<{
      type: string;
      organization_id: string;
      data: { object: Record<string, unknown>; transaction: object };
    }>("select type, organization_id, data from event where (data->'object'->>'number')::bigint = $1", [successor.number]);
    expect(events.map((event) => event.type)).toEqual(['policy.renewed']);
    expect(events[0].organization_id).toBe(organizationId);
    // The new policy without its charges, which the renewal transaction carries (test/e2e/policy-events).
    const { charges, ...withoutCharges } = successor;
    expect(events[0].data).toMatchObject({ transaction: { type: 'renewal', charges } });
    expect(events[0].data.object).toEqual({
      ...withoutCharges,
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

  it('renews an expired policy until POLICY_RENEWAL_LATE_DAYS (30) after its expirationDate, then 409 INVALID_STATE over REST and GraphQL', async () => {
    const late = await policy(-30);
    expect((await read(late.number)).status).toBe('expired');
    const renewed = await renew(late.number, {});
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.body).toMatchObject({ effectiveDate: late.expirationDate, renewalOf: late.number, status: 'active' });

    const lapsed = await policy(-31);
    const before = await service.sql<{ n: number }>('select count(*)::int as n from policy');
    const refused = await renew(lapsed.number, {});
    expect([refused.status, refused.body.code]).toEqual([409, 'INVALID_STATE']);
    expect(refused.body.detail).toContain(`could be renewed until ${day(-1)}, 30 days after its expirationDate (${lapsed.expirationDate})`);
    const viaGraphql = await graphql(service.url, RENEW, { number: lapsed.number, input: {} }, token);
    expect(viaGraphql.body.errors[0].extensions.code).toBe('INVALID_STATE');
    expect(await service.sql('select count(*)::int as n from policy')).toEqual(before);
    expect((await read(lapsed.number)).renewedBy).toBeNull();
  });
});

describe('renewing a policy with POLICY_RENEWAL_LATE_DAYS=3650', () => {
  const service = useTestService({ POLICY_RENEWAL_LATE_DAYS: '3650' });
  let token: string;
  const { policy, read } = policyRenewals({ ...clientOf(service), sql: service.sql }, () => token, 9500);

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('renews a policy that expired years ago; Feb 29 gives Feb 28 a year later', async () => {
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
});
