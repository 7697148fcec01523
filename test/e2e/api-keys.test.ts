import { beforeAll, describe, expect, it } from 'vitest';
import { checksumOf } from '../../src/auth/api-key-format.js';
import { CONTRACT_SCOPES } from '../support/api-key-scopes.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { expectProblem, graphql, request } from '../support/http.js';
import { scrape } from '../support/prometheus.js';
import { clientOf, createRootOrganization, startTestService, useTestService } from '../support/test-service.js';

/**
 * Contract section 20 over the real service: keys made, listed, read, rotated and revoked; a key
 * used as a bearer credential on REST and GraphQL, within its organization's subtree; what is
 * stored; the checksum refused before any statement; revocation seen by a second instance.
 * Every scope against every route and root field: test/e2e/api-key-scopes.test.ts.
 */
const KEY = /^opk_test_[0-9A-Za-z]{32}[0-9A-Za-z]{6}$/;
const KEY_FIELDS = ['id', 'name', 'organizationId', 'scopes', 'prefix', 'createdAt', 'createdBy', 'expiresAt', 'lastUsedAt'];

describe('API keys (contract section 20)', () => {
  const service = useTestService();
  const client = clientOf(service);
  let token: string;
  let organizationId: string;
  let childId: string;

  const makeKey = async (body: Record<string, unknown>, as = token) => {
    const made = await request(service.url, 'POST', '/api/v1/api-keys', { token: as, body });
    expect(made.status, made.text).toBe(200);
    return made.body as Record<string, any> & { key: string; id: string };
  };

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
    const child = await client.request('POST', '/api/v1/organization', {
      token,
      body: organizationBody({ legalName: 'Key Child', parentId: organizationId }),
    });
    expect(child.status, child.text).toBe(200);
    childId = child.body.id;
  });

  it('makes a key shown once, in the contract shape, and stores only its keyed hash', async () => {
    const made = await makeKey({ name: 'nightly batch', scopes: ['organizations:read', 'policies:read'] });
    expect(Object.keys(made)).toEqual([...KEY_FIELDS, 'key']);
    expect(made.key).toMatch(KEY);
    expect(made.key.slice(-6)).toBe(checksumOf(made.key.slice(0, -6)));
    expect(made.prefix).toBe(made.key.slice(0, 16));
    expect(made).toMatchObject({
      name: 'nightly batch',
      organizationId,
      scopes: ['organizations:read', 'policies:read'],
      createdBy: 'alice',
    });
    expect(made.lastUsedAt).toBeNull();
    const days = (Date.parse(made.expiresAt) - Date.parse(made.createdAt)) / 864e5;
    expect(days).toBeCloseTo(90, 3);

    // Neither the read nor the list shows it again.
    const read = await request(service.url, 'GET', `/api/v1/api-keys/${made.id}`, { token });
    expect(read.status, read.text).toBe(200);
    expect(Object.keys(read.body)).toEqual(KEY_FIELDS);
    const list = await request(service.url, 'GET', '/api/v1/api-keys', { token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.map((key: { id: string }) => key.id)).toContain(made.id);
    expect(list.text).not.toContain(made.key);

    // Nothing in the database holds the key's text (the whole table as text, and the events).
    const [{ dump }] = await service.sql<{ dump: string }>(`select string_agg(k::text, ' ') as dump from api_key k`);
    expect(dump).not.toContain(made.key);
    expect(dump).not.toContain(made.key.slice(16));
    const [{ events }] = await service.sql<{ events: string | null }>(`select string_agg(e::text, ' ') as events from event e`);
    expect(events ?? '').not.toContain(made.key.slice(16));
  });

  it('acts for its organization and subtree within its scopes, on REST and GraphQL, and names itself as actor', async () => {
    const made = await makeKey({ name: 'writer', scopes: ['policies:write', 'organizations:read'] });
    const child = await request(service.url, 'GET', `/api/v1/organization/${childId}`, { token: made.key });
    expect(child.status, child.text).toBe(200);
    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token: made.key,
      body: policyBody({ organizationId: childId, number: 4_040_001 }),
    });
    expect(policy.status, policy.text).toBe(200);
    const transactions = await request(service.url, 'GET', '/api/v1/policy/4040001/transactions', { token: made.key });
    expect(transactions.status, transactions.text).toBe(200);
    expect(transactions.body.data[0].createdBy).toBe(`apikey:${made.id}`);

    const viaGraphql = await graphql(
      service.url,
      '{ viewer { sub organization { id } } policy(number: 4040001) { number } }',
      {},
      made.key,
    );
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data).toEqual({
      viewer: { sub: `apikey:${made.id}`, organization: { id: organizationId } },
      policy: { number: 4040001 },
    });

    // The event names the key (events:read is not among its scopes: read with the token).
    const events = await request(service.url, 'GET', `/api/v1/events?organizationId=${childId}&type=policy.created`, { token });
    expect(events.status, events.text).toBe(200);
    const event = events.body.data.find((each: { data: { object: { number: number } } }) => each.data.object.number === 4_040_001);
    expect(event.actor).toEqual({ sub: `apikey:${made.id}`, apiKeyId: made.id });

    // Beyond its scopes: 403 naming the scope, on both surfaces.
    const refused = await request(service.url, 'GET', '/api/v1/events', { token: made.key });
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(refused.body.detail).toContain('"events:read"');
    const field = await graphql(service.url, '{ events(first: 1) { edges { node { id } } } }', {}, made.key);
    expect(field.body.errors[0]).toMatchObject({ path: ['events'], extensions: { code: 'FORBIDDEN' } });
    expect(field.body.errors[0].message).toContain('"events:read"');
  });

  it('cannot reach outside its organization, and a key on a child cannot reach the parent (404)', async () => {
    const onChild = await makeKey({ organizationId: childId, name: 'child reader', scopes: ['organizations:read'] });
    const parent = await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token: onChild.key });
    expectProblem(parent, 404, 'NOT_FOUND');
    const stranger = await createRootOrganization({
      request: (method, path, options) => request(service.url, method, path, options),
      token: (claims: { org?: string }) => service.token({ ...claims, sub: 'mallory' }),
    });
    const other = await request(service.url, 'GET', `/api/v1/organization/${stranger.organizationId}`, { token: onChild.key });
    expectProblem(other, 404, 'NOT_FOUND');
    // Nor can a token make a key for an organization it cannot reach.
    const foreign = await request(service.url, 'POST', '/api/v1/api-keys', {
      token,
      body: { organizationId: stranger.organizationId, name: 'x', scopes: ['policies:read'] },
    });
    expectProblem(foreign, 404, 'NOT_FOUND');
  });

  it('cannot make, rotate or revoke keys, whatever its scopes', async () => {
    const made = await makeKey({
      name: 'everything',
      scopes: CONTRACT_SCOPES,
    });
    for (const [method, path, body] of [
      ['POST', '/api/v1/api-keys', { name: 'child', scopes: ['policies:read'] }],
      ['POST', `/api/v1/api-keys/${made.id}/rotation`, {}],
      ['DELETE', `/api/v1/api-keys/${made.id}`, undefined],
    ] as const) {
      const refused = await request(service.url, method, path, { token: made.key, body });
      expectProblem(refused, 403, 'FORBIDDEN');
    }
    const viaGraphql = await graphql(service.url, `mutation { revokeApiKey(id: "${made.id}") }`, {}, made.key);
    expect(viaGraphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // The key still works: nothing was revoked.
    expect((await request(service.url, 'GET', '/api/v1/api-keys', { token: made.key })).status).toBe(200);
  });

  it('refuses bad bodies with every error listed, and a token with an apikey: sub', async () => {
    const bad = await request(service.url, 'POST', '/api/v1/api-keys', {
      token,
      body: { name: '', scopes: ['policies:read', 'policies:delete'], expiresInDays: 366, scope: 'x' },
    });
    expectProblem(bad, 400, 'BAD_USER_INPUT');
    expect(bad.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['expiresInDays', 'name', 'scope', 'scopes']);
    const empty = await request(service.url, 'POST', '/api/v1/api-keys', { token, body: { name: 'n', scopes: [] } });
    expectProblem(empty, 400, 'BAD_USER_INPUT');
    const noOrg = await request(service.url, 'POST', '/api/v1/api-keys', {
      token: await service.token({ sub: 'alice' }),
      body: { name: 'n', scopes: ['policies:read'] },
    });
    expectProblem(noOrg, 400, 'BAD_USER_INPUT');
    const posing = await request(service.url, 'GET', '/api/v1/api-keys', {
      token: await service.token({ sub: 'apikey:1', org: organizationId }),
    });
    expectProblem(posing, 401, 'UNAUTHENTICATED');
  });

  it('answers an Idempotency-Key retry of a create with 409 naming the key, never the key again', async () => {
    const body = { name: 'retried', scopes: ['policies:read'] };
    const headers = { 'idempotency-key': 'make-key-once-1' };
    const first = await request(service.url, 'POST', '/api/v1/api-keys', { token, body, headers });
    expect(first.status, first.text).toBe(200);
    const again = await request(service.url, 'POST', '/api/v1/api-keys', { token, body, headers });
    expectProblem(again, 409, 'CONFLICT');
    expect(again.body.detail).toContain(first.body.id);
    expect(again.text).not.toContain(first.body.key);
    const [{ count }] = await service.sql<{ count: string }>(`select count(*) from api_key where name = 'retried'`);
    expect(count).toBe('1');
    // Not even sealed: the kept answers hold no copy of it.
    const [{ kept }] = await service.sql<{ kept: string }>(
      `select count(*) as kept from idempotency_key where key = 'make-key-once-1' and body is not null`,
    );
    expect(kept).toBe('0');
  });

  it('rotates: the old key works during the grace and is refused after it; the new one inherits all but the text', async () => {
    const old = await makeKey({ name: 'rotated', scopes: ['organizations:read'], expiresInDays: 30 });
    const rotated = await request(service.url, 'POST', `/api/v1/api-keys/${old.id}/rotation`, { token, body: { graceSeconds: 2 } });
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.body;
    expect(fresh).toMatchObject({ name: 'rotated', organizationId, scopes: ['organizations:read'] });
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.key).not.toBe(old.key);
    expect((Date.parse(fresh.expiresAt) - Date.parse(fresh.createdAt)) / 864e5).toBeCloseTo(30, 3);
    expect((await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token: old.key })).status).toBe(200);
    const oldRead = await request(service.url, 'GET', `/api/v1/api-keys/${old.id}`, { token });
    expect(Date.parse(oldRead.body.expiresAt) - Date.now()).toBeLessThanOrEqual(2000);
    await new Promise((resolve) => setTimeout(resolve, 3200));
    const after = await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token: old.key });
    expectProblem(after, 401, 'UNAUTHENTICATED');
    expect(after.headers.get('www-authenticate')).toContain('expired');
    expect((await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token: fresh.key })).status).toBe(200);
  });

  it('a grace never lengthens a key past its own expiry', async () => {
    const old = await makeKey({ name: 'short', scopes: ['organizations:read'], expiresInDays: 1 });
    const rotated = await request(service.url, 'POST', `/api/v1/api-keys/${old.id}/rotation`, { token, body: { graceSeconds: 604_800 } });
    expect(rotated.status, rotated.text).toBe(200);
    const oldRead = await request(service.url, 'GET', `/api/v1/api-keys/${old.id}`, { token });
    expect(oldRead.body.expiresAt).toBe(old.expiresAt);
    const tooLong = await request(service.url, 'POST', `/api/v1/api-keys/${old.id}/rotation`, { token, body: { graceSeconds: 604_801 } });
    expectProblem(tooLong, 400, 'BAD_USER_INPUT');
  });

  it('records lastUsedAt at most once a minute', async () => {
    const made = await makeKey({ name: 'used', scopes: ['organizations:read'] });
    for (let i = 0; i < 5; i++) {
      expect((await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token: made.key })).status).toBe(200);
    }
    let lastUsedAt: string | null = null;
    for (let wait = 0; wait < 50 && lastUsedAt === null; wait++) {
      lastUsedAt = (await request(service.url, 'GET', `/api/v1/api-keys/${made.id}`, { token })).body.lastUsedAt;
      if (lastUsedAt === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lastUsedAt).not.toBeNull();
    await service.sql(`update api_key set last_used_at = last_used_at - interval '30 seconds' where id = $1`, [made.id]);
    const [{ before }] = await service.sql<{ before: Date }>('select last_used_at as before from api_key where id = $1', [made.id]);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token: made.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [{ now }] = await service.sql<{ now: Date }>('select last_used_at as now from api_key where id = $1', [made.id]);
    expect(now.getTime()).toBe(before.getTime());
  });

  it('refuses a checksum typo with 401 without a statement, and an unknown well-formed key with 401 after one lookup', async () => {
    const made = await makeKey({ name: 'typo', scopes: ['organizations:read'] });
    const typo = made.key.slice(0, 20) + (made.key[20] === 'a' ? 'b' : 'a') + made.key.slice(21);
    // An instance with no work of its own (no delivery relay, no audit sealer): each statement it
    // sends is a request's. On the test's instance a busy machine let a background pass fall inside the window.
    const quietInstance = await startTestService({ WEBHOOK_DELIVERY: 'false', AUDIT_SEAL_SECONDS: '0' }, { sameDatabaseAs: service });
    try {
      const statements = async () => (await scrape(quietInstance.url)).value('db_statements_total');
      // What two scrapes cost by themselves (a scrape reads the past-due gauge).
      const quiet = -(await statements()) + (await statements());
      const before = await statements();
      for (let i = 0; i < 20; i++) {
        const refused = await request(quietInstance.url, 'GET', '/api/v1/organization', { token: typo });
        expectProblem(refused, 401, 'UNAUTHENTICATED');
        expect(refused.headers.get('www-authenticate')).toContain('checksum');
      }
      expect((await statements()) - before).toBe(quiet);
      // The control: a well-formed key nobody made is looked up, and refused.
      const body = 'opk_test_' + 'Z'.repeat(32);
      const unknown = body + checksumOf(body);
      const before2 = await statements();
      expectProblem(await request(quietInstance.url, 'GET', '/api/v1/organization', { token: unknown }), 401, 'UNAUTHENTICATED');
      expect((await statements()) - before2).toBeGreaterThan(quiet);
    } finally {
      await quietInstance.stop();
    }
  });

  it('is refused on another instance within 2 s of its revocation', async () => {
    const made = await makeKey({ name: 'revoked', scopes: ['organizations:read'] });
    const second = await startTestService({ WEBHOOK_DELIVERY: 'false' }, { sameDatabaseAs: service });
    try {
      const path = `/api/v1/organization/${organizationId}`;
      expect((await request(second.url, 'GET', path, { token: made.key })).status).toBe(200);
      const revoked = await request(service.url, 'DELETE', `/api/v1/api-keys/${made.id}`, { token });
      expect(revoked.status, revoked.text).toBe(204);
      const at = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - at < 5000) {
        status = (await request(second.url, 'GET', path, { token: made.key })).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe(401);
      expect(Date.now() - at).toBeLessThan(2000);
      expectProblem(await request(service.url, 'GET', `/api/v1/api-keys/${made.id}`, { token }), 404, 'NOT_FOUND');
      expectProblem(await request(service.url, 'DELETE', `/api/v1/api-keys/${made.id}`, { token }), 404, 'NOT_FOUND');
    } finally {
      await second.stop();
    }
  });
});

describe('API keys: rate limits count per key', () => {
  const service = useTestService({ RATE_LIMIT_REQUESTS_PER_MINUTE: '4' });

  it('gives each key its own budget, apart from the token that made it', async () => {
    const { token, organizationId } = await createRootOrganization(service);
    const keys: string[] = [];
    for (const name of ['a', 'b']) {
      const made = await request(service.url, 'POST', '/api/v1/api-keys', { token, body: { name, scopes: ['organizations:read'] } });
      expect(made.status, made.text).toBe(200);
      keys.push(made.body.key);
    }
    const path = `/api/v1/organization/${organizationId}`;
    const statuses = async (credential: string, count: number) => {
      const seen: number[] = [];
      for (let i = 0; i < count; i++) seen.push((await request(service.url, 'GET', path, { token: credential })).status);
      return seen;
    };
    expect(await statuses(keys[0], 5)).toEqual([200, 200, 200, 200, 429]);
    expect(await statuses(keys[1], 1)).toEqual([200]);
    // The token spent 3 of its 4 (the root, the two keys): one left, whatever the keys spent.
    expect(await statuses(token, 2)).toEqual([200, 429]);
  });
});
