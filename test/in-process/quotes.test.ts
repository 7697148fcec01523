import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { lockOpenQuote, markQuoteIssued } from '../../src/quotes/issue-quote.js';
import { useInProcessService } from '../support/in-process.js';
import { CREATE_QUOTE, READ_QUOTE, quoteBody } from '../support/quotes.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Contract section 14, quotes, through the operation core on REST and GraphQL: refused fields
 * and rules, reach, replays with an Idempotency-Key (kept and rebuilt), and the seam issuing uses.
 * The create and the read over HTTP: test/e2e/quotes.
 */
describe('quotes', () => {
  const service = useInProcessService();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  const quoteCount = async () => Number((await service.sql<{ n: string }>('select count(*) as n from quote'))[0].n);

  it('refuses number, cvc and internalID by name, with every other broken rule, and writes nothing', async () => {
    const before = await quoteCount();
    const response = await service.request('POST', '/api/v1/quote', {
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
      const alone = await service.request('POST', '/api/v1/quote', { token, body: quoteBody({ [field]: null }) });
      expect(alone.status, field).toBe(400);
      expect(alone.body.errors.map((error: { path: string }) => error.path)).toEqual([field]);
    }
    expect(await quoteCount()).toBe(before);
  });

  it('refuses them through GraphQL too: CreateQuoteInput has no such field', async () => {
    for (const field of ['number', 'cvc', 'internalID']) {
      const response = await service.graphql(CREATE_QUOTE, { input: quoteBody({ [field]: field === 'number' ? 5 : '123' }) }, token);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors[0].message).toContain(field);
    }
    const rules = await service.graphql(CREATE_QUOTE, { input: quoteBody({ ownerLastname: '', effectiveDate: '2026-02-30' }) }, token);
    expect(rules.body.errors[0].extensions.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      'effectiveDate',
      'ownerLastname',
    ]);
  });

  it('answers an unknown slug 400 and an organization out of reach 404, writing nothing', async () => {
    const before = await quoteCount();
    const slug = await service.request('POST', '/api/v1/quote', { token, body: quoteBody({ coverageSlug: 'platinum' }) });
    expect(slug.status).toBe(400);
    expect(slug.body.errors).toEqual([{ path: 'coverageSlug', message: expect.any(String) }]);
    const stranger = await service.token({ sub: 'mallory' });
    const away = await service.request('POST', '/api/v1/quote', { token: stranger, body: quoteBody({ organizationId }) });
    expect(away.status).toBe(404);
    const noOrg = await service.request('POST', '/api/v1/quote', { token: stranger, body: quoteBody() });
    expect(noOrg.status).toBe(400);
    expect(noOrg.body.errors).toEqual([{ path: 'organizationId', message: 'is required when the token carries no org claim' }]);
    expect(await quoteCount()).toBe(before);
  });

  it('answers 404 for a quote out of reach exactly as for a missing one, on both surfaces', async () => {
    const created = await service.request('POST', '/api/v1/quote', { token, body: quoteBody() });
    const stranger = await service.token({ sub: 'mallory' });
    const forbidden = await service.request('GET', `/api/v1/quote/${created.body.id}`, { token: stranger });
    for (const missing of [randomUUID(), 'not-a-uuid']) {
      const response = await service.request('GET', `/api/v1/quote/${missing}`, { token: stranger });
      expect(response.status).toBe(404);
      expect(response.text).toBe(forbidden.text);
    }
    expect(forbidden.status).toBe(404);
    expect(forbidden.body.code).toBe('NOT_FOUND');
    const viaGraphql = await service.graphql(READ_QUOTE, { id: created.body.id }, stranger);
    expect(viaGraphql.body.data).toEqual({ quote: null });
    expect(viaGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('replays an Idempotency-Key over REST: the same answer, one quote, one event; another body is 422', async () => {
    const key = `quote-${randomUUID()}`;
    const body = quoteBody({ petName: 'Once' });
    const first = await service.request('POST', '/api/v1/quote', { token, body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    const again = await service.request('POST', '/api/v1/quote', { token, body, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await service.sql(`select 1 from quote where pet_name = 'Once'`)).toHaveLength(1);
    expect(await service.sql(`select 1 from event where type = 'quote.created' and data->'object'->>'petName' = 'Once'`)).toHaveLength(1);
    const other = await service.request('POST', '/api/v1/quote', {
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
      service.request('POST', '/graphql', {
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
  const service = useInProcessService();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  const alice = () => ({ sub: 'alice', org: organizationId });
  const newQuote = async () =>
    (await service.request('POST', '/api/v1/quote', { token, body: quoteBody({ coverageSlug: 'accident-only' }) })).body;
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
    const policy = await service.request('POST', '/api/v1/policy', {
      token,
      body: quoteBody({ coverageSlug: 'accident-only', number: 880001 }),
    });
    const [{ id: policyId }] = await service.sql<{ id: string }>('select id from policy where number = 880001');
    await service.database.transaction(async (tx) => {
      await lockOpenQuote(tx, alice(), issued.id);
      await markQuoteIssued(tx, issued.id, policyId);
    });
    expect(policy.status).toBe(200);
    const read = await service.request('GET', `/api/v1/quote/${issued.id}`, { token });
    expect(read.body).toMatchObject({ status: 'issued', policyNumber: 880001 });
    expect(await codeOf(service.database.transaction((tx) => lockOpenQuote(tx, alice(), issued.id)))).toBe('INVALID_STATE');
    expect(await codeOf(service.database.transaction((tx) => markQuoteIssued(tx, issued.id, policyId)))).toBe('INVALID_STATE');
    // An issued quote stays issued after its expiry.
    await service.sql(`update quote set expires_at = now() - interval '1 second' where id = $1`, [issued.id]);
    expect((await service.request('GET', `/api/v1/quote/${issued.id}`, { token })).body.status).toBe('issued');
  });
});

/**
 * Kept answers too large to keep: each replay is rebuilt from the quote (`quote(id:)`), which
 * must give the same answer.
 */
describe('quotes with answers rebuilt for replays', () => {
  const service = useInProcessService({ QUOTE_VALID_DAYS: '1', IDEMPOTENCY_KEPT_RESPONSE_MAX_BYTES: '1' });
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('rebuilds a replayed answer from the quote, REST and GraphQL', async () => {
    const key = `rebuilt-${randomUUID()}`;
    const body = quoteBody({ petName: 'Rebuilt' });
    const first = await service.request('POST', '/api/v1/quote', { token, body, headers: { 'idempotency-key': key } });
    const again = await service.request('POST', '/api/v1/quote', { token, body, headers: { 'idempotency-key': key } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const send = () =>
      service.request('POST', '/graphql', {
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
