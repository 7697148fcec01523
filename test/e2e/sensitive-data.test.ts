import { createHash } from 'node:crypto';
import { print } from 'graphql';
import stringify from 'safe-stable-stringify';
import { beforeAll, describe, expect, it } from 'vitest';
import { CreatePolicyDocument } from '../generated/graphql.js';
import { createLogger } from '../../src/logger.js';
import { organizationBody, organizationWithSecrets, policyBody, SECRETS, standalone } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

const { account: ACCOUNT, ownerTaxId: OWNER_TAX_ID, organizationTaxId: ORG_TAX_ID } = SECRETS;
const CVC = '8642';
const CVC_ALONE = standalone(CVC);
const LONG_CVC_ALONE = standalone(`${CVC}9`);
const IDEMPOTENT_CVC = '7391';
/** Secrets sent by changes (contract section 15): stored sealed, shown as last fours, like a create's. */
const CHANGED_ACCOUNT = '777666555444333';
const CHANGED_OWNER_TAX_ID = '123-98-7654';
const GRAPHQL_ACCOUNT = '555000111222999';
/** Every cvc there is: 000-999 and 0000-9999. */
const CVC_SPACE = [
  ...Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')),
  ...Array.from({ length: 10000 }, (_, i) => String(i).padStart(4, '0')),
];
const sha256 = (value: unknown) =>
  createHash('sha256')
    .update(stringify(value) ?? 'null')
    .digest('hex');

/**
 * After real creates (and refused ones), the database holds no cvc and no plaintext account
 * number or owner tax id, and the service's log, captured at its most verbose level (SQL
 * included), holds none of them nor the bearer token.
 */
describe('sensitive data', () => {
  const logLines: string[] = [];
  const service = useTestService(
    {},
    { logger: createLogger('trace', { destination: { write: (line: string) => void logLines.push(line) } }) },
  );
  let token: string;
  let organizationId: string;
  let changedOrganizationId: string;
  const changeAnswers: string[] = [];
  const idempotentPolicy = (cvc: string) => policyBody({ organizationId, petName: 'Keyed', cvc });
  const idempotentMutation = (cvc: string) => ({
    query: print(CreatePolicyDocument),
    variables: { input: policyBody({ organizationId, petName: 'Keyed by GraphQL', cvc }) },
    operationName: null,
  });

  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });

    const organization = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationWithSecrets(),
    });
    expect(organization.status).toBe(200);
    organizationId = organization.body.id;
    // A second organization with the same secrets, changed to new ones through REST, then GraphQL.
    const changed = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationWithSecrets() });
    expect(changed.status).toBe(200);
    changedOrganizationId = changed.body.id;
    const patched = await request(service.url, 'PATCH', `/api/v1/organization/${changedOrganizationId}`, {
      token,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: {
        bankAccounts: [{ routing: '110000000', account: CHANGED_ACCOUNT }],
        owners: [{ firstname: 'Ada', lastname: 'L', taxId: CHANGED_OWNER_TAX_ID, ownership: 100 }],
      },
    });
    expect(patched.status, patched.text).toBe(200);
    changeAnswers.push(patched.text);
    const patchedByGraphql = await graphql(
      service.url,
      'mutation ($id: ID!, $input: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $input) { version bankAccounts { accountLast4 } owners { taxIdLast4 } } }',
      { id: changedOrganizationId, input: { bankAccounts: [{ routing: '110000000', account: GRAPHQL_ACCOUNT }] } },
      token,
    );
    expect(patchedByGraphql.body.data.updateOrganization).toMatchObject({ version: 3, bankAccounts: [{ accountLast4: '2999' }] });
    changeAnswers.push(patchedByGraphql.text);
    // Idempotent creates: their fingerprints are what an attacker with the table would brute-force.
    const keyed = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: idempotentPolicy(IDEMPOTENT_CVC),
      headers: { 'idempotency-key': 'secret-key-1' },
    });
    expect(keyed.status).toBe(200);
    const { query, variables } = idempotentMutation(IDEMPOTENT_CVC);
    const keyedGraphql = await request(service.url, 'POST', '/graphql', {
      token,
      body: { query, variables },
      headers: { 'idempotency-key': 'secret-key-2' },
    });
    expect(keyedGraphql.status).toBe(200);
    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId: organization.body.id, number: 31337, cvc: CVC }),
    });
    expect(policy.status).toBe(200);
    // Refused requests that carry the same secrets: a rule broken, a duplicate, a bad type.
    const refused = [
      await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ organizationId: organization.body.id, number: 31337, cvc: CVC }),
      }),
      await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ organizationId: organization.body.id, cvc: `${CVC}9` }),
      }),
      await request(service.url, 'POST', '/api/v1/organization', {
        token,
        body: organizationBody({
          bankAccounts: [{ routing: '1', account: ACCOUNT }],
          owners: [{ firstname: 'A', lastname: 'B', taxId: OWNER_TAX_ID, ownership: 500 }],
        }),
      }),
      await graphql(service.url, 'mutation { createPolicy(input: { cvc: 8642 }) { number } }', {}, token),
      // A change refused on its rules, carrying the secrets it would have stored.
      await request(service.url, 'PATCH', `/api/v1/organization/${organization.body.id}`, {
        token,
        body: {
          bankAccounts: [{ routing: '1', account: CHANGED_ACCOUNT }],
          owners: [{ firstname: 'A', lastname: 'B', taxId: CHANGED_OWNER_TAX_ID, ownership: 500 }],
        },
      }),
      await graphql(
        service.url,
        'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { number } }',
        { i: { cvc: 8642, ownerFirstname: OWNER_TAX_ID } },
        token,
      ),
    ];
    for (const response of refused) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.text).not.toMatch(CVC_ALONE);
      expect(response.text).not.toMatch(LONG_CVC_ALONE);
      expect(response.text).not.toContain(ACCOUNT);
      expect(response.text).not.toContain(OWNER_TAX_ID);
      expect(response.text).not.toContain(CHANGED_ACCOUNT);
      expect(response.text).not.toContain(CHANGED_OWNER_TAX_ID);
    }
  });

  it('answers a change with last fours only, and its organization.updated event holds last fours only, before and after', async () => {
    for (const answer of changeAnswers) {
      for (const secret of [ACCOUNT, OWNER_TAX_ID, CHANGED_ACCOUNT, CHANGED_OWNER_TAX_ID, GRAPHQL_ACCOUNT])
        expect(answer).not.toContain(secret);
    }
    const events = await service.sql<{ data: { object: any; previousAttributes: any } }>(
      "select data from event where type = 'organization.updated' and organization_id = $1 order by created_at, id",
      [changedOrganizationId],
    );
    expect(events).toHaveLength(2);
    const [first, second] = events.map((event) => event.data);
    expect(first.previousAttributes.bankAccounts).toEqual([
      { id: expect.any(String), nickname: null, routing: '110000000', accountLast4: '3444' },
    ]);
    expect(first.previousAttributes.owners[0]).toMatchObject({ taxIdLast4: '4321' });
    expect(first.previousAttributes.owners[0]).not.toHaveProperty('taxId');
    expect(first.object.bankAccounts[0]).toEqual({ id: expect.any(String), nickname: null, routing: '110000000', accountLast4: '4333' });
    expect(first.object.owners[0]).toMatchObject({ taxIdLast4: '7654' });
    expect(second.previousAttributes).toEqual({ bankAccounts: first.object.bankAccounts });
    expect(second.object.bankAccounts[0].accountLast4).toBe('2999');
    const dump = JSON.stringify(events);
    for (const secret of [ACCOUNT, OWNER_TAX_ID, CHANGED_ACCOUNT, CHANGED_OWNER_TAX_ID, GRAPHQL_ACCOUNT])
      expect(dump).not.toContain(secret);
  });

  it('stores no cvc and no plaintext account number or owner tax id in any table', async () => {
    const tables = await service.sql<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['organization', 'owner', 'bank_account', 'policy', 'charge']));
    for (const { table_name } of tables) {
      const rows = await service.sql(`select * from "${table_name}"`);
      const dump = JSON.stringify(rows);
      expect(dump, table_name).not.toMatch(CVC_ALONE);
      expect(dump, table_name).not.toContain(ACCOUNT);
      expect(dump, table_name).not.toContain(OWNER_TAX_ID);
      for (const secret of [CHANGED_ACCOUNT, CHANGED_OWNER_TAX_ID, GRAPHQL_ACCOUNT]) expect(dump, table_name).not.toContain(secret);
      expect(dump.toLowerCase(), table_name).not.toContain('"cvc"');
    }
    const [owner] = await service.sql<{ tax_id_ciphertext: string; tax_id_key_id: string; tax_id_last4: string }>(
      'select * from owner where organization_id = $1',
      [organizationId],
    );
    expect(owner.tax_id_ciphertext).toBeTruthy();
    expect(owner.tax_id_key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(owner.tax_id_last4).toBe('4321');
    const [account] = await service.sql<{ account_ciphertext: string; account_last4: string }>(
      'select * from bank_account where organization_id = $1',
      [organizationId],
    );
    expect(Buffer.from(account.account_ciphertext, 'base64').toString('latin1')).not.toContain(ACCOUNT);
    expect(account.account_last4).toBe('3444');
    // The changed organization's owner: its new tax id sealed (its clear text is in no table, above).
    const [changedOwner] = await service.sql<{ tax_id_ciphertext: string; tax_id_last4: string }>(
      'select * from owner where organization_id = $1',
      [changedOrganizationId],
    );
    expect(changedOwner.tax_id_last4).toBe('7654');
    expect(changedOwner.tax_id_ciphertext).toBeTruthy();
  });

  it('keeps no fingerprint from which a cvc can be found by trying every cvc', async () => {
    const rows = await service.sql<{ key: string; fingerprint: string }>('select key, fingerprint from idempotency_key order by key');
    expect(rows.map((row) => row.key)).toEqual(['secret-key-1', 'secret-key-2']);
    // How the attack of the review worked: hash each candidate body as the service once did.
    const candidates = (cvc: string) => [idempotentPolicy(cvc), idempotentMutation(cvc)];
    const stored = new Set(rows.map((row) => row.fingerprint));
    const found = CVC_SPACE.filter((cvc) => candidates(cvc).some((body) => stored.has(sha256(body))));
    expect(found).toEqual([]);
    // The same search does find the cvc behind a plain hash: the search itself works.
    const plain = new Set(candidates(IDEMPOTENT_CVC).map(sha256));
    expect(CVC_SPACE.filter((cvc) => candidates(cvc).some((body) => plain.has(sha256(body))))).toEqual([IDEMPOTENT_CVC]);
    // And no fingerprint, keyed or not, appears in the log.
    for (const { fingerprint } of rows) expect(logLines.join('')).not.toContain(fingerprint);
  });

  it('shows none of them, nor the token, in /metrics (spans: test/e2e/tracing.test.ts)', async () => {
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toContain('http_requests_total');
    for (const secret of [token, ACCOUNT, OWNER_TAX_ID, ORG_TAX_ID, 'secret-key-1', CHANGED_ACCOUNT, CHANGED_OWNER_TAX_ID, GRAPHQL_ACCOUNT])
      expect(metrics).not.toContain(secret);
    for (const cvc of [CVC_ALONE, LONG_CVC_ALONE, standalone(IDEMPOTENT_CVC)]) expect(metrics).not.toMatch(cvc);
  });

  it('logs none of them, nor the token', () => {
    const log = logLines.join('');
    // SQL is logged without its values: the organization's own tax id is not a secret, but a
    // statement's values can be (kept answers, fingerprints).
    expect(log).not.toContain(ORG_TAX_ID);
    expect(log).not.toMatch(standalone(IDEMPOTENT_CVC));
    expect(logLines.length).toBeGreaterThan(10);
    // The log is really verbose: SQL statements and request lines are in it.
    expect(log).toContain('insert into');
    expect(log).toContain('/api/v1/policy');
    expect(log).not.toMatch(CVC_ALONE);
    expect(log).not.toMatch(LONG_CVC_ALONE);
    expect(log).not.toContain(ACCOUNT);
    expect(log).not.toContain(OWNER_TAX_ID);
    for (const secret of [CHANGED_ACCOUNT, CHANGED_OWNER_TAX_ID, GRAPHQL_ACCOUNT]) expect(log).not.toContain(secret);
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.split('.')[2]);
  });

  it('writes one structured line per request with its id, route, status, duration and sub', async () => {
    expect((await request(service.url, 'GET', '/api/v1/policy/31337', { token })).status).toBe(200);
    const lines = logLines.map((line) => JSON.parse(line));
    const access = lines.filter((line) => line.msg === 'request completed' && line.route === '/api/v1/policy');
    expect(access.length).toBeGreaterThanOrEqual(3);
    for (const line of access) {
      expect(line).toMatchObject({ sub: 'alice', req: { id: expect.any(String), method: 'POST', url: '/api/v1/policy' } });
      expect(typeof line.res.statusCode).toBe('number');
      expect(typeof line.responseTime).toBe('number');
    }
    const ids = access.map((line) => line.req.id);
    expect(new Set(ids).size).toBe(ids.length);
    const read = lines.find((line) => line.msg === 'request completed' && line.req?.url === '/api/v1/policy/31337');
    expect(read).toMatchObject({ route: '/api/v1/policy/:id', sub: 'alice', res: { statusCode: 200 } });
  });
});
