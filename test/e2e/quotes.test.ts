import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, request } from '../support/http.js';
import { CREATE_QUOTE, READ_QUOTE, quoteBody } from '../support/quotes.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 14, quotes: the create and the read over REST and GraphQL, its events and
 * expiry. Refusals, reach, replays and the seam issuing uses: test/in-process/quotes.
 */

// A quote's charges are the schedule without ids: a policy's charges also name their ledger
// transaction and the charge a reversal undoes (null for a premium).
const withoutIds = (charges: Array<Record<string, unknown>>) =>
  charges.map(({ id: _id, transactionId: _transaction, reverses: _reverses, ...charge }) => charge);

describe('quotes', () => {
  const service = useTestService();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  it('answers the contract shape: open, unissued, for the token’s org, expiring QUOTE_VALID_DAYS (30) after creation', async () => {
    const body = quoteBody({ ownerDOB: '1990-05-05', petDOB: '2020-02-02' });
    const response = await request(service.url, 'POST', '/api/v1/quote', { token, body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(
      [
        'id',
        'organizationId',
        'ownerFirstname',
        'ownerLastname',
        'ownerDOB',
        'petName',
        'petDOB',
        'effectiveDate',
        'expirationDate',
        'coverage',
        'charges',
        'totalPremium',
        'currency',
        'status',
        'expiresAt',
        'policyNumber',
      ].sort(),
    );
    expect(response.body).toMatchObject({
      organizationId,
      ownerFirstname: 'Rosa',
      ownerLastname: 'Diaz',
      ownerDOB: '1990-05-05',
      petName: 'Biscuit',
      petDOB: '2020-02-02',
      effectiveDate: '2026-01-01',
      expirationDate: '2027-01-01',
      totalPremium: 12 * 2900,
      currency: 'USD',
      status: 'open',
      policyNumber: null,
    });
    expect(response.body.coverage).toEqual({
      slug: 'accident-illness-basic',
      name: 'Accident & Illness Basic',
      deductible: 50000,
      reimbursementRate: 0.8,
      annualLimit: 500000,
      monthlyPremium: 2900,
      currency: 'USD',
    });
    const [row] = await service.sql<{ days: number; expires_at: Date; coverage_slug: string }>(
      `select extract(epoch from expires_at - created_at) / 86400 as days, expires_at, coverage_slug from quote where id = $1`,
      [response.body.id],
    );
    expect(Number(row.days)).toBe(30);
    expect(response.body.expiresAt).toBe(row.expires_at.toISOString());
    expect(row.coverage_slug).toBe('accident-illness-basic');
  });

  it.each([
    ['a one-year term', {}],
    ['Jan 31 to May 15, partial last period', { effectiveDate: '2026-01-31', expirationDate: '2026-05-15', coverageSlug: 'accident-only' }],
    [
      'a five-year term on the dearest plan',
      { effectiveDate: '2026-02-29'.replace('2026', '2028'), expirationDate: '2033-02-28', coverageSlug: 'accident-illness-unlimited' },
    ],
    ['a term of two days', { effectiveDate: '2026-03-30', expirationDate: '2026-04-01', coverageSlug: 'accident-illness-plus' }],
  ])('quotes exactly the charges a policy created from the same body gets (%s), REST and GraphQL', async (_name, overrides) => {
    const body = quoteBody(overrides);
    const policy = await request(service.url, 'POST', '/api/v1/policy', { token, body });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const quote = await request(service.url, 'POST', '/api/v1/quote', { token, body });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body.charges).toEqual(withoutIds(policy.body.charges));
    expect(quote.body.coverage).toEqual(policy.body.coverage);
    expect(quote.body.totalPremium).toBe(policy.body.charges.reduce((sum: number, charge: { amount: number }) => sum + charge.amount, 0));
    const viaGraphql = await graphql(service.url, CREATE_QUOTE, { input: body }, token);
    expect(viaGraphql.body.errors, JSON.stringify(viaGraphql.body)).toBeUndefined();
    expect(viaGraphql.body.data.createQuote.charges).toEqual(withoutIds(policy.body.charges));
    expect(viaGraphql.body.data.createQuote.totalPremium).toBe(quote.body.totalPremium);
  });

  it('reads a quote back as it was created, over REST and GraphQL (the same shape)', async () => {
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody({ petName: 'Read me 🐾' }) });
    const read = await request(service.url, 'GET', `/api/v1/quote/${created.body.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const viaGraphql = await graphql(service.url, READ_QUOTE, { id: created.body.id }, token);
    expect(viaGraphql.body).toEqual({ data: { quote: created.body } });
  });

  it('refetches a quote as a Relay node, through the access rule', async () => {
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody() });
    const query = `query ($id: ID!) { node(id: $id) { __typename id ... on Quote { totalPremium status } } }`;
    const found = await graphql(service.url, query, { id: created.body.id }, token);
    expect(found.body).toEqual({
      data: { node: { __typename: 'Quote', id: created.body.id, totalPremium: created.body.totalPremium, status: 'open' } },
    });
    const hidden = await graphql(service.url, query, { id: created.body.id }, await service.token({ sub: 'mallory' }));
    expect(hidden.body.data).toEqual({ node: null });
    expect(hidden.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('keeps the quoted price after the catalog changes', async () => {
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody({ coverageSlug: 'accident-only' }) });
    await service.sql(`update coverage_plan set monthly_premium = 9999, name = 'Renamed' where slug = 'accident-only'`);
    try {
      const read = await request(service.url, 'GET', `/api/v1/quote/${created.body.id}`, { token });
      expect(read.body.coverage).toMatchObject({ name: 'Accident Only', monthlyPremium: 1200 });
      expect(read.body.charges.every((charge: { amount: number }) => charge.amount === 1200)).toBe(true);
      expect(read.body.totalPremium).toBe(12 * 1200);
      // A new quote takes the catalog as it is now.
      const fresh = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody({ coverageSlug: 'accident-only' }) });
      expect(fresh.body.totalPremium).toBe(12 * 9999);
    } finally {
      await service.sql(`update coverage_plan set monthly_premium = 1200, name = 'Accident Only' where slug = 'accident-only'`);
    }
  });

  it('reads expired once expiresAt has passed, on both surfaces', async () => {
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody() });
    await service.sql(`update quote set expires_at = now() - interval '1 second' where id = $1`, [created.body.id]);
    const read = await request(service.url, 'GET', `/api/v1/quote/${created.body.id}`, { token });
    expect(read.body.status).toBe('expired');
    const viaGraphql = await graphql(service.url, READ_QUOTE, { id: created.body.id }, token);
    expect(viaGraphql.body.data.quote.status).toBe('expired');
  });

  it('records quote.created with the create answer, in the same transaction, visible in the events', async () => {
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody({ petName: 'Evented' }) });
    const rows = await service.sql<{ type: string; organization_id: string; data: { object: unknown } }>(
      `select type, organization_id, data from event where data->'object'->>'id' = $1`,
      [created.body.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'quote.created', organization_id: organizationId });
    expect(rows[0].data.object).toEqual(created.body);
    const listed = await request(service.url, 'GET', `/api/v1/events?type=quote.created&organizationId=${organizationId}&limit=100`, {
      token,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((event: { data: { object: { id: string } } }) => event.data.object.id)).toContain(created.body.id);
  });

  it('lets a webhook endpoint subscribe to quote.created and makes it a delivery', async () => {
    const endpoint = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: { url: 'http://127.0.0.1:9/hook', events: ['quote.created'] },
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(200);
    expect(endpoint.body.events).toEqual(['quote.created']);
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody() });
    const deliveries = await service.sql(
      `select 1 from webhook_delivery d join event e on e.id = d.event_id where d.endpoint_id = $1 and e.data->'object'->>'id' = $2`,
      [endpoint.body.id, created.body.id],
    );
    expect(deliveries).toHaveLength(1);
    await request(service.url, 'DELETE', `/api/v1/webhook-endpoints/${endpoint.body.id}`, { token });
  });
});

/** A short validity. */
describe('quotes with QUOTE_VALID_DAYS=1', () => {
  const service = useTestService({ QUOTE_VALID_DAYS: '1' });
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('expires a day after creation', async () => {
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody() });
    const [row] = await service.sql<{ days: string }>(
      `select extract(epoch from expires_at - created_at) / 86400 as days from quote where id = $1`,
      [created.body.id],
    );
    expect(Number(row.days)).toBe(1);
    expect(created.body.status).toBe('open');
    // A day on, it reads expired: the clock is the database's, moved here by moving the row back a day.
    await service.sql(
      `update quote set created_at = created_at - interval '1 day', expires_at = expires_at - interval '1 day' where id = $1`,
      [created.body.id],
    );
    const read = await request(service.url, 'GET', `/api/v1/quote/${created.body.id}`, { token });
    expect(read.body.status).toBe('expired');
  });
});
