import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatePolicyDocument, type CreatePolicyInput } from '../generated/graphql.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request, type TestResponse } from '../support/http.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { print } from 'graphql';

/** Idempotency-Key on the two REST POSTs and the two create mutations (contract section 7). */
describe('idempotency keys', () => {
  let service: TestService;
  let token: string;
  let organizationId: string;
  let keys = 0;
  const newKey = () => `key-${Date.now()}-${++keys}`;

  beforeAll(async () => {
    service = await startTestService({ IDEMPOTENCY_KEY_RETENTION_SECONDS: '2' });
    const root = await request(service.url, 'POST', '/api/v1/organization', { token: await service.token({ sub: 'alice' }), body: organizationBody() });
    organizationId = root.body.id;
    token = await service.token({ sub: 'alice', org: organizationId });
    // Rows named "Slow" take 400 ms to insert, so a second request surely overlaps the first.
    await service.sql(`
      create function test_slow_insert() returns trigger language plpgsql as $$
      begin
        perform pg_sleep(0.4);
        return new;
      end $$;
      create trigger test_slow before insert on organization for each row when (new.legal_name = 'Slow') execute function test_slow_insert();
      create trigger test_slow before insert on policy for each row when (new.pet_name = 'Slow') execute function test_slow_insert();
    `);
  });
  afterAll(() => service?.stop());

  const post = (path: string, body: unknown, key: string, who = token) =>
    request(service.url, 'POST', path, { token: who, body, headers: { 'idempotency-key': key } });
  const mutation = (input: Record<string, unknown>, key: string) =>
    post('/graphql', { query: print(CreatePolicyDocument), variables: { input: input as CreatePolicyInput } }, key);
  const count = async (table: string) => Number((await service.sql<{ n: string }>(`select count(*) as n from ${table}`))[0].n);

  describe.each([
    ['REST organization', (key: string, body = organizationBody({ legalName: 'Once' })) => post('/api/v1/organization', body, key), 'organization'],
    ['REST policy', (key: string, body = policyBody({ petName: 'Once' })) => post('/api/v1/policy', body, key), 'policy'],
    ['GraphQL createPolicy', (key: string, body = policyBody({ petName: 'Once' })) => mutation(body, key), 'policy'],
  ] as const)('%s', (_name, send, table) => {
    it('replays the identical response, with Idempotent-Replayed, and creates once', async () => {
      const key = newKey();
      const before = await count(table);
      const first = await send(key);
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await send(key);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(await count(table)).toBe(before + 1);
    });

    it('answers 422 to the same key with another body', async () => {
      const key = newKey();
      await send(key);
      const other = await send(key, table === 'organization' ? organizationBody({ legalName: 'Else' }) : policyBody({ petName: 'Else' }));
      expect(other.status).toBe(422);
      const code = other.body.code ?? other.body.errors[0].extensions.code;
      expect(code).toBe('IDEMPOTENCY_KEY_REUSED');
    });

    it('gives two concurrent requests with one key one result and one 409', async () => {
      const key = newKey();
      const before = await count(table);
      const slow = table === 'organization' ? organizationBody({ legalName: 'Slow' }) : policyBody({ petName: 'Slow' });
      const first = send(key, slow);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const responses = await Promise.all([first, send(key, slow)]);
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 409]);
      const refused = responses.find((response) => response.status === 409)!;
      expect(refused.body.code ?? refused.body.errors[0].extensions.code).toBe('CONFLICT');
      expect(await count(table)).toBe(before + 1);
      // Once the first has finished, a retry gets its result.
      const retry = await send(key, slow);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(responses.find((response) => response.status === 200)!.text);
    });
  });

  it('treats a key with the same body in another key order as the same request', async () => {
    const key = newKey();
    const first = await post('/api/v1/organization', { legalName: 'A', legalType: 'llc', taxId: '1' }, key);
    const again = await post('/api/v1/organization', { taxId: '1', legalType: 'llc', legalName: 'A' }, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it('keeps 4xx answers and replays them', async () => {
    const key = newKey();
    const first = await post('/api/v1/policy', policyBody({ coverageSlug: 'nope' }), key);
    expect(first.status).toBe(400);
    const again = await post('/api/v1/policy', policyBody({ coverageSlug: 'nope' }), key);
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('scopes keys to the principal and the operation', async () => {
    const key = newKey();
    const mine = await post('/api/v1/policy', policyBody({ petName: 'Mine' }), key);
    const bob = await service.token({ sub: 'bob', org: organizationId });
    const theirs = await post('/api/v1/policy', policyBody({ petName: 'Mine' }), key, bob);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.number).not.toBe(mine.body.number);
    const otherOperation = await post('/api/v1/organization', organizationBody(), key);
    expect(otherOperation.status).toBe(200);
    expect(otherOperation.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not keep a 5xx, so its retry runs again', async () => {
    const key = newKey();
    await service.sql('alter table charge add constraint test_fail_charges check (sequence < 0) not valid');
    let failed: TestResponse;
    try {
      failed = await post('/api/v1/policy', policyBody({ petName: 'Retry' }), key);
    } finally {
      await service.sql('alter table charge drop constraint test_fail_charges');
    }
    expect(failed.status).toBe(500);
    const retried = await post('/api/v1/policy', policyBody({ petName: 'Retry' }), key);
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a key that is empty, too long or not printable', async () => {
    for (const key of ['x'.repeat(256), 'tab\there']) {
      const response = await post('/api/v1/organization', organizationBody(), key);
      expect(response.status, key).toBe(400);
      expect(response.body.errors).toEqual([{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable characters' }]);
    }
  });

  it('forgets a key after its retention, and deletes it', async () => {
    const key = newKey();
    const first = await post('/api/v1/organization', organizationBody({ legalName: 'Expiring' }), key);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const later = await post('/api/v1/organization', organizationBody({ legalName: 'Expiring' }), key);
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const { deleteExpiredKeys } = await import('../../src/idempotency/idempotency.js');
    expect(await deleteExpiredKeys(service.orm.em.fork())).toBeGreaterThan(0);
    expect(await service.sql('select key from idempotency_key where expires_at <= now()')).toEqual([]);
  });

  it('ignores the header on requests that create nothing', async () => {
    const read = await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token, headers: { 'idempotency-key': 'x' } });
    expect(read.status).toBe(200);
    expect(read.headers.get('idempotent-replayed')).toBeNull();
  });
});
