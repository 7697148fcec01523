import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';
import { lockOpenQuote, markQuoteIssued } from '../../src/quotes/issue-quote.js';

/** Contract section 14, quotes: the create and the read over REST and GraphQL. */

/** The policy create body without what a quote refuses. */
const quoteBody = (overrides: Record<string, unknown> = {}) => policyBody(overrides);

const QUOTE_FIELDS = `id organizationId ownerFirstname ownerLastname ownerDOB petName petDOB effectiveDate expirationDate
  coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency }
  charges { type periodStart periodEnd dueDate amount currency status }
  totalPremium currency status expiresAt policyNumber`;
const CREATE_QUOTE = `mutation ($input: CreateQuoteInput!) { createQuote(input: $input) { ${QUOTE_FIELDS} } }`;
const READ_QUOTE = `query ($id: ID!) { quote(id: $id) { ${QUOTE_FIELDS} } }`;

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

  const quoteCount = async () => Number((await service.sql<{ n: string }>('select count(*) as n from quote'))[0].n);

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

  it('refuses number, cvc and internalID by name, with every other broken rule, and writes nothing', async () => {
    const before = await quoteCount();
    const response = await request(service.url, 'POST', '/api/v1/quote', {
      token,
      body: quoteBody({
        number: 77,
        cvc: '123',
        internalID: 'ext-1',
        ownerFirstname: ' ',
        expirationDate: '2025-01-01',
        petDOB: '2026-02-01',
      }),
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('BAD_USER_INPUT');
    const paths = response.body.errors.map((error: { path: string }) => error.path);
    expect(paths.sort()).toEqual(['cvc', 'expirationDate', 'internalID', 'number', 'ownerFirstname', 'petDOB'].sort());
    expect(response.body.errors).toContainEqual({ path: 'number', message: expect.stringContaining('issuing') });
    // Even alone, and even null, each one is refused.
    for (const field of ['number', 'cvc', 'internalID']) {
      const alone = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody({ [field]: null }) });
      expect(alone.status, field).toBe(400);
      expect(alone.body.errors.map((error: { path: string }) => error.path)).toEqual([field]);
    }
    expect(await quoteCount()).toBe(before);
  });

  it('refuses them through GraphQL too: CreateQuoteInput has no such field', async () => {
    for (const field of ['number', 'cvc', 'internalID']) {
      const response = await graphql(service.url, CREATE_QUOTE, { input: quoteBody({ [field]: field === 'number' ? 5 : '123' }) }, token);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors[0].message).toContain(field);
    }
    const rules = await graphql(service.url, CREATE_QUOTE, { input: quoteBody({ ownerLastname: '', effectiveDate: '2026-02-30' }) }, token);
    expect(rules.body.errors[0].extensions.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      'effectiveDate',
      'ownerLastname',
    ]);
  });

  it('answers an unknown slug 400 and an organization out of reach 404, writing nothing', async () => {
    const before = await quoteCount();
    const slug = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody({ coverageSlug: 'platinum' }) });
    expect(slug.status).toBe(400);
    expect(slug.body.errors).toEqual([{ path: 'coverageSlug', message: expect.any(String) }]);
    const stranger = await service.token({ sub: 'mallory' });
    const away = await request(service.url, 'POST', '/api/v1/quote', { token: stranger, body: quoteBody({ organizationId }) });
    expect(away.status).toBe(404);
    const noOrg = await request(service.url, 'POST', '/api/v1/quote', { token: stranger, body: quoteBody() });
    expect(noOrg.status).toBe(400);
    expect(noOrg.body.errors).toEqual([{ path: 'organizationId', message: 'is required when the token carries no org claim' }]);
    expect(await quoteCount()).toBe(before);
  });

  it('answers 404 for a quote out of reach exactly as for a missing one, on both surfaces', async () => {
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody() });
    const stranger = await service.token({ sub: 'mallory' });
    const forbidden = await request(service.url, 'GET', `/api/v1/quote/${created.body.id}`, { token: stranger });
    for (const missing of [randomUUID(), 'not-a-uuid']) {
      const response = await request(service.url, 'GET', `/api/v1/quote/${missing}`, { token: stranger });
      expect(response.status).toBe(404);
      expect(response.text).toBe(forbidden.text);
    }
    expect(forbidden.status).toBe(404);
    expect(forbidden.body.code).toBe('NOT_FOUND');
    const viaGraphql = await graphql(service.url, READ_QUOTE, { id: created.body.id }, stranger);
    expect(viaGraphql.body.data).toEqual({ quote: null });
    expect(viaGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
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

  it('replays an Idempotency-Key over REST: the same answer, one quote, one event; another body is 422', async () => {
    const key = `quote-${randomUUID()}`;
    const body = quoteBody({ petName: 'Once' });
    const first = await request(service.url, 'POST', '/api/v1/quote', { token, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    const again = await request(service.url, 'POST', '/api/v1/quote', { token, body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await service.sql(`select 1 from quote where pet_name = 'Once'`)).toHaveLength(1);
    expect(await service.sql(`select 1 from event where type = 'quote.created' and data->'object'->>'petName' = 'Once'`)).toHaveLength(1);
    const other = await request(service.url, 'POST', '/api/v1/quote', {
      token,
      body: quoteBody({ petName: 'Twice' }),
      headers: { 'idempotency-key': key },
    });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('replays an Idempotency-Key on createQuote through GraphQL', async () => {
    const key = `quote-gql-${randomUUID()}`;
    const send = () =>
      request(service.url, 'POST', '/graphql', {
        token,
        body: { query: CREATE_QUOTE, variables: { input: quoteBody({ petName: 'Once by GraphQL' }) } },
        headers: { 'idempotency-key': key },
      });
    const first = await send();
    expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
    const again = await send();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await service.sql(`select 1 from quote where pet_name = 'Once by GraphQL'`)).toHaveLength(1);
  });
});

/**
 * The seam issuing will use (src/quotes/issue-quote.ts): an open quote, locked in the issuing
 * transaction; 404 out of reach; 409 INVALID_STATE once issued or expired.
 */
describe('loading a quote for issuing', () => {
  const service = useTestService();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  const alice = () => ({ sub: 'alice', org: organizationId });
  const newQuote = async () =>
    (await request(service.url, 'POST', '/api/v1/quote', { token, body: quoteBody({ coverageSlug: 'accident-only' }) })).body;
  const codeOf = (work: Promise<unknown>) =>
    work.then(
      () => 'resolved',
      (error: { extensions?: { code?: string } }) => error.extensions?.code ?? String(error),
    );

  it('gives the open quote with its stored charges and organization, its row locked until the transaction ends', async () => {
    const quote = await newQuote();
    await service.database.transaction(async (tx) => {
      const loaded = await lockOpenQuote(tx, alice(), quote.id);
      expect(loaded).toMatchObject({ ...quote, coverageSlug: 'accident-only', organization: { id: organizationId } });
      // Another transaction cannot take the row meanwhile.
      const other = await codeOf(service.sql(`select 1 from quote where id = $1 for update nowait`, [quote.id]));
      expect(other).toMatch(/could not obtain lock/);
    });
    expect(await service.sql(`select 1 from quote where id = $1 for update nowait`, [quote.id])).toHaveLength(1);
  });

  it('refuses outside a transaction (the lock would end with the statement)', async () => {
    const quote = await newQuote();
    // The compiler refuses it too: a Database is not a Transaction.
    // @ts-expect-error -- outside a transaction on purpose
    await expect(lockOpenQuote(service.database, alice(), quote.id)).rejects.toThrow(/transaction/);
  });

  it('answers NOT_FOUND out of reach, and for an id that is none', async () => {
    const quote = await newQuote();
    for (const [principal, id] of [
      [{ sub: 'mallory', org: null }, quote.id],
      [alice(), randomUUID()],
      [alice(), 'nope'],
    ] as const) {
      expect(await codeOf(service.database.transaction((tx) => lockOpenQuote(tx, principal, id)))).toBe('NOT_FOUND');
    }
  });

  it('answers INVALID_STATE for an expired quote and for an issued one, which reads issued with its policy number', async () => {
    const expired = await newQuote();
    await service.sql(`update quote set expires_at = now() - interval '1 second' where id = $1`, [expired.id]);
    expect(await codeOf(service.database.transaction((tx) => lockOpenQuote(tx, alice(), expired.id)))).toBe('INVALID_STATE');

    const issued = await newQuote();
    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: quoteBody({ coverageSlug: 'accident-only', number: 880001 }),
    });
    const [{ id: policyId }] = await service.sql<{ id: string }>('select id from policy where number = 880001');
    await service.database.transaction(async (tx) => {
      await lockOpenQuote(tx, alice(), issued.id);
      await markQuoteIssued(tx, issued.id, policyId);
    });
    expect(policy.status).toBe(200);
    const read = await request(service.url, 'GET', `/api/v1/quote/${issued.id}`, { token });
    expect(read.body).toMatchObject({ status: 'issued', policyNumber: 880001 });
    expect(await codeOf(service.database.transaction((tx) => lockOpenQuote(tx, alice(), issued.id)))).toBe('INVALID_STATE');
    expect(await codeOf(service.database.transaction((tx) => markQuoteIssued(tx, issued.id, policyId)))).toBe('INVALID_STATE');
    // An issued quote stays issued after its expiry.
    await service.sql(`update quote set expires_at = now() - interval '1 second' where id = $1`, [issued.id]);
    expect((await request(service.url, 'GET', `/api/v1/quote/${issued.id}`, { token })).body.status).toBe('issued');
  });
});

/**
 * A short validity, and kept answers too large to keep: each replay is rebuilt from the quote
 * (`quote(id:)`), which must give the same answer.
 */
describe('quotes with QUOTE_VALID_DAYS=1 and answers rebuilt for replays', () => {
  const service = useTestService({ QUOTE_VALID_DAYS: '1', IDEMPOTENCY_KEPT_RESPONSE_MAX_BYTES: '1' });
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

  it('rebuilds a replayed answer from the quote, REST and GraphQL', async () => {
    const key = `rebuilt-${randomUUID()}`;
    const body = quoteBody({ petName: 'Rebuilt' });
    const first = await request(service.url, 'POST', '/api/v1/quote', { token, body, headers: { 'idempotency-key': key } });
    const again = await request(service.url, 'POST', '/api/v1/quote', { token, body, headers: { 'idempotency-key': key } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const send = () =>
      request(service.url, 'POST', '/graphql', {
        token,
        body: { query: CREATE_QUOTE, variables: { input: quoteBody({ petName: 'Rebuilt by GraphQL' }) } },
        headers: { 'idempotency-key': key },
      });
    const gqlFirst = await send();
    const gqlAgain = await send();
    expect(gqlAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(gqlAgain.body).toEqual(gqlFirst.body);
    expect(await service.sql(`select 1 from quote where pet_name in ('Rebuilt', 'Rebuilt by GraphQL')`)).toHaveLength(2);
  });
});
