import { beforeAll, describe, expect, it } from 'vitest';
import { addMonthsClamped } from '../../src/values/calendar-date.js';
import { policyBody } from '../support/fixtures.js';
import { graphql, request, type TestResponse } from '../support/http.js';
import { CANCEL, REINSTATE, day } from '../support/policy-lifecycle.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 14, "Versions and ordering": a policy event's `data.object` is the REST answer
 * without `charges` (the same keys in the same order otherwise), and `data.transaction` is
 * `{ id, type, effectiveDate, changes, charges }` with the charges that transaction wrote. Every
 * step that records one (issue, change, cancel, reinstate, renew), over REST and GraphQL, as
 * `GET /api/v1/events` serves events (the body webhooks deliver, EVENT_BODY).
 */
describe('policy events', () => {
  const service = useTestService();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  const post = (path: string, body: object) => request(service.url, 'POST', path, { token, body });

  /** The events of policy `number`, oldest first, as the REST events list serves them. */
  async function eventsOf(number: number): Promise<Array<{ type: string; data: Record<string, any> }>> {
    const page = await request(service.url, 'GET', `/api/v1/events?organizationId=${organizationId}&limit=100`, { token });
    expect(page.status).toBe(200);
    return page.body.data.filter((event: { data: { object: { number: number } } }) => event.data.object.number === number);
  }

  /** The REST answer without its charges, as JSON text: equal text is equal keys in equal order. */
  const withoutCharges = (answer: Record<string, unknown>) => JSON.stringify({ ...answer, charges: undefined });

  /** What an event of a step that answered `answer` must carry, checked against the transactions list too. */
  async function expectEventOf(event: { type: string; data: Record<string, any> }, type: string, answer: TestResponse) {
    expect(answer.status, answer.text).toBe(200);
    expect(event.type).toBe(type);
    expect(Object.keys(event.data)).toEqual(['object', 'transaction']);
    expect(JSON.stringify(event.data.object)).toBe(withoutCharges(answer.body));
    expect('charges' in event.data.object).toBe(false);
    const { transaction } = event.data;
    expect(Object.keys(transaction)).toEqual(['id', 'type', 'effectiveDate', 'changes', 'charges']);
    // Exactly the charges that transaction wrote, each as the REST answer shows it, in its order.
    const written = answer.body.charges.filter((charge: { transactionId: string }) => charge.transactionId === transaction.id);
    expect(JSON.stringify(transaction.charges)).toBe(JSON.stringify(written));
    const listed = await request(service.url, 'GET', `/api/v1/policy/${answer.body.number}/transactions?limit=100`, { token });
    const entry = listed.body.data.find((item: { id: string }) => item.id === transaction.id);
    expect(entry).toMatchObject({ type: transaction.type, effectiveDate: transaction.effectiveDate, changes: transaction.changes });
    return transaction;
  }

  it('each REST step records its object without charges and its transaction with the charges it wrote', async () => {
    // A year from 330 days ago: the renewal window is open, and a billing date lies a few days ahead.
    const effectiveDate = day(-330);
    const expirationDate = addMonthsClamped(effectiveDate, 12);
    const billingDate = addMonthsClamped(effectiveDate, 11);
    const number = 8100;
    const created = await post(
      '/api/v1/policy',
      policyBody({ number, effectiveDate, expirationDate, coverageSlug: 'accident-illness-basic' }),
    );
    const changed = await post(`/api/v1/policy/${number}/changes`, { effectiveDate: billingDate, coverageSlug: 'accident-illness-plus' });
    const cancelled = await post(`/api/v1/policy/${number}/cancellation`, { effectiveDate: billingDate, reason: 'insured_request' });
    const reinstated = await post(`/api/v1/policy/${number}/reinstatement`, {});
    const renewed = await post(`/api/v1/policy/${number}/renewal`, {});

    const events = await eventsOf(number);
    expect(events.map((event) => event.type)).toEqual(['policy.created', 'policy.changed', 'policy.cancelled', 'policy.reinstated']);
    const issuance = await expectEventOf(events[0], 'policy.created', created);
    expect(issuance).toMatchObject({ type: 'issuance', effectiveDate, changes: {} });
    expect(issuance.charges).toHaveLength(12);
    const change = await expectEventOf(events[1], 'policy.changed', changed);
    // The last period: its credit of -net(P) and its premium at the new plan's price.
    expect(change.charges.map((charge: { type: string }) => charge.type)).toEqual(['credit', 'premium']);
    const cancellation = await expectEventOf(events[2], 'policy.cancelled', cancelled);
    expect(cancellation.charges.map((charge: { type: string }) => charge.type)).toEqual(['credit', 'fee']);
    const reinstatement = await expectEventOf(events[3], 'policy.reinstated', reinstated);
    expect(reinstatement.charges.map((charge: { reverses: string }) => charge.reverses)).toEqual(
      cancellation.charges.map((charge: { id: string }) => charge.id),
    );

    const [successor] = await eventsOf(renewed.body.number);
    const renewal = await expectEventOf(successor, 'policy.renewed', renewed);
    expect(renewal).toMatchObject({ type: 'renewal', effectiveDate: expirationDate, changes: { renewalOf: { from: null, to: number } } });
    expect(renewal.charges).toHaveLength(12);
  });

  it('a GraphQL cancellation and reinstatement record the same events', async () => {
    const number = 8101;
    const effectiveDate = day(-20);
    expect(
      (await post('/api/v1/policy', policyBody({ number, effectiveDate, expirationDate: addMonthsClamped(effectiveDate, 12) }))).status,
    ).toBe(200);
    const cancelled = await graphql(service.url, CANCEL, { number, input: { effectiveDate: day(0), reason: 'underwriting' } }, token);
    expect(cancelled.body.errors).toBeUndefined();
    const afterCancel = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
    const reinstated = await graphql(service.url, REINSTATE, { number, input: {} }, token);
    expect(reinstated.body.errors).toBeUndefined();
    const afterReinstate = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });

    const events = await eventsOf(number);
    const cancellation = await expectEventOf(events[1], 'policy.cancelled', afterCancel);
    expect(cancellation.charges).toEqual(
      cancelled.body.data.cancelPolicy.charges.filter((charge: { transactionId: string }) => charge.transactionId === cancellation.id),
    );
    await expectEventOf(events[2], 'policy.reinstated', afterReinstate);
    // GraphQL's Event.data is the same value.
    const viaGraphql = await graphql(
      service.url,
      `query ($id: ID!) { organization(id: $id) { events(first: 10, types: ["policy.cancelled"]) { edges { node { data } } } } }`,
      { id: organizationId },
      token,
    );
    expect(viaGraphql.body.errors, viaGraphql.text).toBeUndefined();
    const nodes = viaGraphql.body.data.organization.events.edges.map(
      (edge: { node: { data: { object: { number: number } } } }) => edge.node,
    );
    expect(nodes.find((node: { data: { object: { number: number } } }) => node.data.object.number === number).data).toEqual(events[1].data);
  });

  it('an event stays small however long the ledger: a change on a 970-charge ledger records under 2 KB', async () => {
    const number = 8102;
    expect(
      (await post('/api/v1/policy', policyBody({ number, effectiveDate: day(-20), expirationDate: addMonthsClamped(day(-20), 12) })))
        .status,
    ).toBe(200);
    // Zero premiums numbered after the schedule, written straight to the table (as cycles of cancellations would).
    await service.sql(
      `insert into charge (id, policy_id, transaction_id, sequence, type, period_start, period_end, due_date, amount, currency, status)
       select gen_random_uuid(), c.policy_id, c.transaction_id, c.sequence + i, 'premium', c.period_start, c.period_end, c.due_date, 0, 'USD', 'scheduled'
       from (select c.* from charge c join policy p on p.id = c.policy_id where p.number = $1 order by c.sequence desc limit 1) c,
         generate_series(1, 958) i`,
      [number],
    );
    const changed = await post(`/api/v1/policy/${number}/changes`, { effectiveDate: day(0), petName: 'Biscuit II' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.charges).toHaveLength(970);
    const [{ bytes }] = await service.sql<{ bytes: number }>(
      "select octet_length(data::text) as bytes from event where type = 'policy.changed' and (data->'object'->>'number')::bigint = $1",
      [number],
    );
    // It was 251 KB: every charge of the ledger in data.object.
    expect(bytes).toBeLessThan(2048);
  });
});
