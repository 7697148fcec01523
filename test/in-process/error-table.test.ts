import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { expectProblem } from '../support/http.js';
import { useInProcessService } from '../support/in-process.js';

/**
 * The error table of contract section 6, as the operation core answers it on both surfaces.
 * What the host answers before a route runs (a body that is not JSON, 404, 405, 413, 415) and
 * X-Request-Id: test/e2e/error-table.
 */
describe('errors', () => {
  const service = useInProcessService();
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
  });

  it('400 for a JSON body that is not an object', async () => {
    expectProblem(await service.request('POST', '/api/v1/policy', { token, body: '["a"]' }), 400, 'BAD_USER_INPUT');
  });

  it('409 for a duplicate policy number', async () => {
    const root = await service.request('POST', '/api/v1/organization', { token, body: organizationBody() });
    const body = policyBody({ organizationId: root.body.id, number: 77 });
    expect((await service.request('POST', '/api/v1/policy', { token, body })).status).toBe(200);
    expectProblem(await service.request('POST', '/api/v1/policy', { token, body }), 409, 'CONFLICT');
  });

  it('500 with only a request id when something unexpected breaks, in REST and GraphQL', async () => {
    const root = await service.request('POST', '/api/v1/organization', { token, body: organizationBody() });
    // Break this test's own database under the service: reading the catalog now fails in SQL.
    await service.sql('alter table coverage_plan rename column monthly_premium to broken_premium');
    try {
      const response = await service.request('POST', '/api/v1/policy', {
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
      const viaGraphql = await service.request('POST', '/graphql', {
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
    expect((await service.graphql('{ coverages { slug } }', {}, token)).body.data.coverages).toHaveLength(4);
  });

  it('writes an organization with its owners, or a policy with its charges, whole or not at all', async () => {
    const count = async (table: string) => Number((await service.sql<{ n: string }>(`select count(*) as n from ${table}`))[0].n);
    const root = await service.request('POST', '/api/v1/organization', { token, body: organizationBody() });
    // Constraints that only the database knows, so the failure comes in the middle of the writes.
    await service.sql("alter table owner add constraint test_no_zed check (firstname <> 'Zed') not valid");
    await service.sql('alter table charge add constraint test_short_schedule check (sequence < 5) not valid');
    try {
      const before = { organization: await count('organization'), owner: await count('owner'), bank_account: await count('bank_account') };
      const organization = await service.request('POST', '/api/v1/organization', {
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
      const policy = await service.request('POST', '/api/v1/policy', {
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
    const retried = await service.request('POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId: root.body.id, number: 4242 }),
    });
    expect(retried.status).toBe(200);
  });
});

describe('errors in production mode', () => {
  const service = useInProcessService({ NODE_ENV: 'production' });
  let token: string;
  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
  });

  it('shows no stack traces and no introspection, and still lists field errors', async () => {
    const syntax = await service.graphql('{ viewer { ', {}, token);
    expect(syntax.status).toBe(400);
    expect(JSON.stringify(syntax.body)).not.toMatch(/stacktrace|\.ts:|at /);
    const introspection = await service.graphql('{ __schema { types { name } } }', {}, token);
    expect(introspection.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const anonymous = await service.graphql('{ __schema { queryType { name } } }');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="org-policy-service"');
    const invalid = await service.request('POST', '/api/v1/policy', { token, body: { cvc: 'x' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toContainEqual({ path: 'cvc', message: 'must be 3 or 4 digits' });
  });
});
