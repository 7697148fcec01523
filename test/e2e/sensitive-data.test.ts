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
/** Every cvc there is: 000-999 and 0000-9999. */
const CVC_SPACE = [...Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')), ...Array.from({ length: 10000 }, (_, i) => String(i).padStart(4, '0'))];
const sha256 = (value: unknown) => createHash('sha256').update(stringify(value) ?? 'null').digest('hex');

/**
 * After real creates (and refused ones), the database holds no cvc and no plaintext account
 * number or owner tax id, and the service's log, captured at its most verbose level (SQL
 * included), holds none of them nor the bearer token.
 */
describe('sensitive data', () => {
  const logLines: string[] = [];
  const service = useTestService({}, { logger: createLogger('trace', { destination: { write: (line: string) => void logLines.push(line) } }) });
  let token: string;
  let organizationId: string;
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
    // Idempotent creates: their fingerprints are what an attacker with the table would brute-force.
    const keyed = await request(service.url, 'POST', '/api/v1/policy', { token, body: idempotentPolicy(IDEMPOTENT_CVC), headers: { 'idempotency-key': 'secret-key-1' } });
    expect(keyed.status).toBe(200);
    const { query, variables } = idempotentMutation(IDEMPOTENT_CVC);
    const keyedGraphql = await request(service.url, 'POST', '/graphql', { token, body: { query, variables }, headers: { 'idempotency-key': 'secret-key-2' } });
    expect(keyedGraphql.status).toBe(200);
    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId: organization.body.id, number: 31337, cvc: CVC }),
    });
    expect(policy.status).toBe(200);
    // Refused requests that carry the same secrets: a rule broken, a duplicate, a bad type.
    const refused = [
      await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: organization.body.id, number: 31337, cvc: CVC }) }),
      await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: organization.body.id, cvc: `${CVC}9` }) }),
      await request(service.url, 'POST', '/api/v1/organization', {
        token,
        body: organizationBody({ bankAccounts: [{ routing: '1', account: ACCOUNT }], owners: [{ firstname: 'A', lastname: 'B', taxId: OWNER_TAX_ID, ownership: 500 }] }),
      }),
      await graphql(service.url, 'mutation { createPolicy(input: { cvc: 8642 }) { number } }', {}, token),
      await graphql(service.url, 'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { number } }', { i: { cvc: 8642, ownerFirstname: OWNER_TAX_ID } }, token),
    ];
    for (const response of refused) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.text).not.toMatch(CVC_ALONE);
      expect(response.text).not.toMatch(LONG_CVC_ALONE);
      expect(response.text).not.toContain(ACCOUNT);
      expect(response.text).not.toContain(OWNER_TAX_ID);
    }
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
      expect(dump.toLowerCase(), table_name).not.toContain('"cvc"');
    }
    const [owner] = await service.sql<{ tax_id_ciphertext: string; tax_id_key_id: string; tax_id_last4: string }>('select * from owner');
    expect(owner.tax_id_ciphertext).toBeTruthy();
    expect(owner.tax_id_key_id).toMatch(/^[0-9a-f]{16}$/);
    expect(owner.tax_id_last4).toBe('4321');
    const [account] = await service.sql<{ account_ciphertext: string; account_last4: string }>('select * from bank_account');
    expect(Buffer.from(account.account_ciphertext, 'base64').toString('latin1')).not.toContain(ACCOUNT);
    expect(account.account_last4).toBe('3444');
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
    for (const secret of [token, ACCOUNT, OWNER_TAX_ID, ORG_TAX_ID, 'secret-key-1']) expect(metrics).not.toContain(secret);
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
