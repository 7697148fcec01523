import { beforeAll, describe, expect, it } from 'vitest';
import { CreatePolicyDocument, type CreatePolicyInput } from '../generated/graphql.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import type { TestResponse } from '../support/http.js';
import { useInProcessService } from '../support/in-process.js';
import { createRootOrganization } from '../support/test-service.js';
import { print } from 'graphql';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { day } from '../support/policy-lifecycle.js';

/**
 * Idempotency-Key on the REST POSTs and the create mutations (contract section 7), through the
 * operation core in process. A replay over HTTP, on both surfaces: test/e2e/idempotency.
 */
describe('idempotency keys', () => {
  const service = useInProcessService({ IDEMPOTENCY_KEY_RETENTION_SECONDS: '2' });
  let token: string;
  let organizationId: string;
  let keys = 0;
  const newKey = () => `key-${Date.now()}-${++keys}`;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
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

  const post = (path: string, body: unknown, key: string, who = token) =>
    service.request('POST', path, { token: who, body, headers: { 'idempotency-key': key } });
  const mutation = (input: Record<string, unknown>, key: string) =>
    post('/graphql', { query: print(CreatePolicyDocument), variables: { input: input as CreatePolicyInput } }, key);
  const count = async (table: string) => Number((await service.sql<{ n: string }>(`select count(*) as n from ${table}`))[0].n);

  describe.each([
    [
      'REST organization',
      (key: string, body = organizationBody({ legalName: 'Once' })) => post('/api/v1/organization', body, key),
      'organization',
    ],
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
    // A 404 found while running (an unknown slug is a body check now, answered before the key is claimed).
    const elsewhere = policyBody({ organizationId: '8b5e7d0e-3f43-4a7a-9d22-3c6f1b1c2d3e' });
    const first = await post('/api/v1/policy', elsewhere, key);
    expect(first.status).toBe(404);
    const again = await post('/api/v1/policy', elsewhere, key);
    expect(again.status).toBe(404);
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

  it('does not keep an answer to a body that failed its checks: the key still works once it is fixed', async () => {
    const key = newKey();
    const invalid = await post('/api/v1/policy', policyBody({ effectiveDate: 'someday' }), key);
    expect(invalid.status).toBe(400);
    expect(await service.sql('select 1 from idempotency_key where key = $1', [key])).toEqual([]);
    const fixed = await post('/api/v1/policy', policyBody(), key);
    expect(fixed.status).toBe(200);
  });

  it('does not keep a GraphQL refusal made before the mutation ran: the corrected retry runs', async () => {
    const key = newKey();
    const variables = { i: policyBody({ petName: 'Corrected' }) };
    const refused = await post(
      '/graphql',
      { query: 'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { numbr } }', variables },
      key,
    );
    expect(refused.status).toBe(400);
    const corrected = await post(
      '/graphql',
      { query: 'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { number } }', variables },
      key,
    );
    expect(corrected.status).toBe(200);
    expect(corrected.body.data.createPolicy.number).toEqual(expect.any(Number));
  });

  it('rebuilds the answer of a create whose run stopped between the write and keeping its answer', async () => {
    for (const [path, body, table] of [
      ['/api/v1/policy', policyBody({ petName: 'Interrupted' }), 'policy'],
      [
        '/api/v1/organization',
        organizationBody({ legalName: 'Interrupted', owners: [{ firstname: 'A', lastname: 'B', taxId: '123-45-6789' }] }),
        'organization',
      ],
    ] as const) {
      const key = newKey();
      const first = await post(path, body, key);
      expect(first.status).toBe(200);
      // What a crash after the create's commit leaves: the record marked on the key, no answer, an expired claim.
      await service.sql(
        "update idempotency_key set status = null, content_type = null, body = null, locked_until = now() - interval '1 second' where key = $1",
        [key],
      );
      const before = await count(table);
      const retry = await post(path, body, key);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(first.text);
      expect(await count(table)).toBe(before);
      // The rebuilt answer is kept from then on.
      // (sealed at rest: never the answer in clear), and replayed as it was.
      const [row] = await service.sql<{ body: string }>('select body from idempotency_key where key = $1', [key]);
      expect(row.body).toMatch(/^sealed-br:/);
      expect(row.body).not.toContain(first.text.slice(0, 20));
      expect((await post(path, body, key)).text).toBe(first.text);
    }
  });

  it('runs afresh when a claim expired before anything was created', async () => {
    const key = newKey();
    await post('/api/v1/policy', policyBody({ petName: 'Claimed' }), key);
    // What a crash after the claim and before the create's commit leaves.
    await service.sql(
      "update idempotency_key set created = null, status = null, content_type = null, body = null, locked_until = now() - interval '1 second' where key = $1",
      [key],
    );
    const before = await count('policy');
    const retry = await post('/api/v1/policy', policyBody({ petName: 'Claimed' }), key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await count('policy')).toBe(before + 1);
  });

  it('stores keyed fingerprints, never a plain hash of the body', async () => {
    const key = newKey();
    const body = policyBody({ cvc: '123' });
    await post('/api/v1/policy', body, key);
    const [row] = await service.sql<{ fingerprint: string }>('select fingerprint from idempotency_key where key = $1', [key]);
    const { createHash } = await import('node:crypto');
    const { default: stringify } = await import('safe-stable-stringify');
    expect(row.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(row.fingerprint).not.toBe(createHash('sha256').update(stringify(body)).digest('hex'));
  });

  it('commits the create before its response selection runs: no transaction waits on the selection', async () => {
    // The selection reads owners; a lock on that table holds the selection back (and only it).
    const locker = new pg.Client({ connectionString: service.databaseUrl });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table owner in access exclusive mode');
    const key = newKey();
    const pending = post(
      '/graphql',
      {
        query: 'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { number organization { owners { firstname } } } }',
        variables: { i: policyBody({ petName: 'Selected' }) },
      },
      key,
    );
    try {
      await sleep(500);
      // While the selection waits, the policy is already committed and no writing transaction is open.
      expect(await service.sql("select 1 from policy where pet_name = 'Selected'")).toHaveLength(1);
      const writing = await service.sql(
        'select pid from pg_stat_activity where datname = current_database() and backend_xid is not null and pid <> pg_backend_pid() and pid <> $1',
        [(locker as unknown as { processID: number }).processID],
      );
      expect(writing).toEqual([]);
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    const answered = await pending;
    expect(answered.status).toBe(200);
    expect(answered.body.data.createPolicy.organization.owners).toEqual([]);
  });

  it('ignores the header on requests that create nothing', async () => {
    const read = await service.request('GET', `/api/v1/organization/${organizationId}`, {
      token,
      headers: { 'idempotency-key': 'x' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('idempotent-replayed')).toBeNull();
  });
});

/** A short retention, so that a key is forgotten within the test. */
describe('idempotency keys with a retention of 1 s', () => {
  const service = useInProcessService({ IDEMPOTENCY_KEY_RETENTION_SECONDS: '1' });
  let token: string;
  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('forgets a key after its retention, and deletes it', async () => {
    const key = 'expiring';
    const first = await service.request('POST', '/api/v1/organization', {
      token,
      body: organizationBody({ legalName: 'Expiring' }),
      headers: { 'idempotency-key': key },
    });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const later = await service.request('POST', '/api/v1/organization', {
      token,
      body: organizationBody({ legalName: 'Expiring' }),
      headers: { 'idempotency-key': key },
    });
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.id).not.toBe(first.body.id);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const { deleteExpiredKeys } = await import('../../src/idempotency/idempotency.js');
    expect(await deleteExpiredKeys(service.database)).toBeGreaterThan(0);
    expect(await service.sql('select key from idempotency_key where expires_at <= now()')).toEqual([]);
  });
});

/**
 * Answers too large to keep even compressed (IDEMPOTENCY_KEPT_RESPONSE_MAX_BYTES) are replayed
 * rebuilt from their record, and only when the rebuilt answer is the first one byte for byte.
 */
describe('idempotency keys with a small kept-answer cap', () => {
  const service = useInProcessService({ IDEMPOTENCY_KEPT_RESPONSE_MAX_BYTES: '200' });
  let token: string;
  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('keeps no body over the cap, and replays the same answer rebuilt (REST and GraphQL)', async () => {
    const rest = () =>
      service.request('POST', '/api/v1/policy', {
        token,
        body: policyBody({ petName: 'Large' }),
        headers: { 'idempotency-key': 'large-rest' },
      });
    const first = await rest();
    expect(first.text.length).toBeGreaterThan(600);
    const [kept] = await service.sql<{ body: string | null; created: unknown; answer_digest: string }>(
      "select body, created, answer_digest from idempotency_key where key = 'large-rest'",
    );
    expect(kept).toEqual({
      body: null,
      created: { type: 'policy', number: first.body.number },
      answer_digest: createHash('sha256').update(first.text).digest('base64'),
    });
    const again = await rest();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);

    const mutation = {
      query:
        'mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) { number petName charges { id periodStart periodEnd dueDate amount } } }',
      variables: { input: policyBody({ petName: 'Large' }) },
    };
    const graphql = () => service.request('POST', '/graphql', { token, body: mutation, headers: { 'idempotency-key': 'large-graphql' } });
    const created = await graphql();
    expect(created.status).toBe(200);
    expect(created.text.length).toBeGreaterThan(600);
    expect(await service.sql("select body from idempotency_key where key = 'large-graphql'")).toEqual([{ body: null }]);
    const replayed = await graphql();
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.text).toBe(created.text);
    // Rebuilding runs the selection again: it spends the caller's GraphQL cost budget.
    const costLeft = (response: TestResponse) => Number(/"graphql-cost";r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1]);
    expect(costLeft(replayed)).toBeLessThan(costLeft(created));
    const rows = await service.sql("select 1 from policy where pet_name = 'Large'");
    expect(rows).toHaveLength(2);
  });

  it('answers 409, not another answer, when a replay rebuilt after a later step would differ; the same answer while nothing changed', async () => {
    const number = 7300;
    expect(
      (
        await service.request('POST', '/api/v1/policy', {
          token,
          body: policyBody({ number, effectiveDate: day(-20), expirationDate: day(345) }),
        })
      ).status,
    ).toBe(200);
    const cancel = () =>
      service.request('POST', `/api/v1/policy/${number}/cancellation`, {
        token,
        body: { effectiveDate: day(5), reason: 'other' },
        headers: { 'idempotency-key': 'large-cancel' },
      });
    const first = await cancel();
    expect(first.status, first.text).toBe(200);
    expect(await service.sql("select body from idempotency_key where key = 'large-cancel'")).toEqual([{ body: null }]);
    const same = await cancel();
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(same.text).toBe(first.text);
    expect((await service.request('POST', `/api/v1/policy/${number}/reinstatement`, { token, body: {} })).status).toBe(200);
    // Rebuilt now, it would say there is no cancellation: refused instead.
    const after = await cancel();
    expect(after.status, after.text).toBe(409);
    expect(after.body.code).toBe('CONFLICT');
    expect(after.body.detail).toContain('too large to keep');
    expect(
      await service.sql(
        "select 1 from policy_transaction t join policy p on p.id = t.policy_id where p.number = $1 and t.type = 'cancellation'",
        [number],
      ),
    ).toHaveLength(1);
  });
});
