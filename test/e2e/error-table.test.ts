import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/** The error table of contract section 6, over real HTTP. */
describe('errors', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
  });

  const expectProblem = (response: Awaited<ReturnType<typeof request>>, status: number, code: string) => {
    expect(response.status, response.text).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ type: 'about:blank', status, code });
    expect(typeof response.body.title).toBe('string');
    expect(typeof response.body.detail).toBe('string');
  };

  it('400 for malformed JSON', async () => {
    expectProblem(await request(service.url, 'POST', '/api/v1/organization', { token, body: '{"legalName": ' }), 400, 'BAD_USER_INPUT');
  });

  it('400 for a JSON body that is not an object', async () => {
    expectProblem(await request(service.url, 'POST', '/api/v1/policy', { token, body: '["a"]' }), 400, 'BAD_USER_INPUT');
  });

  it('415 for a POST that is not application/json', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const response = await request(service.url, 'POST', '/api/v1/organization', {
        token,
        body: 'legalName=x',
        headers: { 'content-type': type },
      });
      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('413 for a body over 100 KB, before anything is written', async () => {
    const response = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationBody({ description: 'd'.repeat(110 * 1024) }),
    });
    expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(await service.sql('select id from organization')).toHaveLength(0);
  });

  it('404 problem+json for unknown routes, never an HTML page', async () => {
    for (const path of ['/nope', '/api/v1/nope', '/api/v2/organization', '/api/v1/organization/1/2']) {
      const response = await request(service.url, 'GET', path, { token });
      expectProblem(response, 404, 'NOT_FOUND');
      expect(response.text).not.toMatch(/<html|<pre>/i);
    }
  });

  it('405 with Allow for a known path and another method', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/organization', 'POST, GET, HEAD'],
      ['DELETE', '/api/v1/organization/5f0c6f3e-8a5b-4a43-9df1-3c1c7b5a2f10', 'GET, PATCH, HEAD'],
      ['PUT', '/api/v1/policy', 'POST, GET, HEAD'],
      ['PATCH', '/api/v1/policy/12', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await request(service.url, method, path, { token, body: method === 'GET' ? undefined : {} });
      expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
      expect(response.headers.get('allow')).toBe(allow);
    }
  });

  it('409 for a duplicate policy number', async () => {
    const root = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    const body = policyBody({ organizationId: root.body.id, number: 77 });
    expect((await request(service.url, 'POST', '/api/v1/policy', { token, body })).status).toBe(200);
    expectProblem(await request(service.url, 'POST', '/api/v1/policy', { token, body }), 409, 'CONFLICT');
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const given = await request(service.url, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc-123');
    const made = await request(service.url, 'GET', '/healthz', { headers: { 'x-request-id': 'x'.repeat(200) } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('500 with only a request id when something unexpected breaks, in REST and GraphQL', async () => {
    const root = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    // Break this test's own database under the service: reading the catalog now fails in SQL.
    await service.sql('alter table coverage_plan rename column monthly_premium to broken_premium');
    try {
      const response = await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ organizationId: root.body.id }),
        headers: { 'x-request-id': 'req-500-check' },
      });
      expectProblem(response, 500, 'INTERNAL_SERVER_ERROR');
      expect(response.body).toEqual({
        type: 'about:blank',
        title: 'Internal Server Error',
        status: 500,
        detail: 'Internal server error.',
        code: 'INTERNAL_SERVER_ERROR',
        requestId: 'req-500-check',
      });
      const viaGraphql = await request(service.url, 'POST', '/graphql', {
        token,
        body: { query: '{ coverages { slug monthlyPremium } }' },
        headers: { 'x-request-id': 'gql-500-check' },
      });
      expect(viaGraphql.body.errors).toEqual([
        {
          message: 'Internal server error.',
          locations: [{ line: 1, column: 3 }],
          path: ['coverages'],
          extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'gql-500-check' },
        },
      ]);
      for (const text of [response.text, viaGraphql.text]) expect(text).not.toMatch(/select |broken_premium|does not exist|stack|\.ts:/i);
    } finally {
      await service.sql('alter table coverage_plan rename column broken_premium to monthly_premium');
    }
    expect((await graphql(service.url, '{ coverages { slug } }', {}, token)).body.data.coverages).toHaveLength(4);
  });

  it('writes an organization with its owners, or a policy with its charges, whole or not at all', async () => {
    const count = async (table: string) => Number((await service.sql<{ n: string }>(`select count(*) as n from ${table}`))[0].n);
    const root = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    // Constraints that only the database knows, so the failure comes in the middle of the writes.
    await service.sql("alter table owner add constraint test_no_zed check (firstname <> 'Zed') not valid");
    await service.sql('alter table charge add constraint test_short_schedule check (sequence < 5) not valid');
    try {
      const before = { organization: await count('organization'), owner: await count('owner'), bank_account: await count('bank_account') };
      const organization = await request(service.url, 'POST', '/api/v1/organization', {
        token,
        body: organizationBody({
          bankAccounts: [{ routing: '110000000', account: '000123456789' }],
          owners: [
            { firstname: 'Ada', lastname: 'L' },
            { firstname: 'Zed', lastname: 'Z' },
          ],
        }),
      });
      expect(organization.status).toBe(500);
      expect({ organization: await count('organization'), owner: await count('owner'), bank_account: await count('bank_account') }).toEqual(
        before,
      );

      const policies = await count('policy');
      const charges = await count('charge');
      const policy = await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ organizationId: root.body.id, number: 4242 }),
      });
      expect(policy.status).toBe(500);
      expect(await count('policy')).toBe(policies);
      expect(await count('charge')).toBe(charges);
    } finally {
      await service.sql('alter table owner drop constraint test_no_zed');
      await service.sql('alter table charge drop constraint test_short_schedule');
    }
    const retried = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId: root.body.id, number: 4242 }),
    });
    expect(retried.status).toBe(200);
  });
});

describe('errors in production mode', () => {
  const service = useTestService({ NODE_ENV: 'production' });
  let token: string;
  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
  });

  it('shows no stack traces and no introspection, and still lists field errors', async () => {
    const syntax = await graphql(service.url, '{ viewer { ', {}, token);
    expect(syntax.status).toBe(400);
    expect(JSON.stringify(syntax.body)).not.toMatch(/stacktrace|\.ts:|at /);
    const introspection = await graphql(service.url, '{ __schema { types { name } } }', {}, token);
    expect(introspection.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const anonymous = await graphql(service.url, '{ __schema { queryType { name } } }');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="org-policy-service"');
    const invalid = await request(service.url, 'POST', '/api/v1/policy', { token, body: { cvc: 'x' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toContainEqual({ path: 'cvc', message: 'must be 3 or 4 digits' });
  });
});
