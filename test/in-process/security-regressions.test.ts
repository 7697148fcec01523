import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * The security review's findings (shared/reviews/security-review.md) that the operation core
 * answers, one regression test each, in process. The findings about time, the host, tokens and
 * logs: test/e2e/security-regressions. The numbers in the describe names are the review's.
 */
describe('security review findings', () => {
  const service = useInProcessService({ RATE_LIMIT_REQUESTS_PER_MINUTE: '0' });
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  describe('1. GraphQL cost limit', () => {
    it('charges lists that are not connections by their maximum size', async () => {
      // 100 policies x 61 charges x 9 fields: over 5,000 (it counted 1,201 when charges counted once).
      const query = `{ organization(id: "${organizationId}") { policies(first: 100) { edges { node { charges { id type periodStart periodEnd dueDate amount currency status } } } } } }`;
      const response = await service.graphql(query, {}, token);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].message).toMatch(/cost limit of 5000 exceeded/);
      const owners = `{ organization(id: "${organizationId}") { children(first: 20) { edges { node { owners { firstname lastname email phone taxIdLast4 birthdate ownership } bankAccounts { id nickname routing accountLast4 } } } } } }`;
      expect((await service.graphql(owners, {}, token)).status).toBe(400);
    });
  });

  describe('2. input checks are linear in the body', () => {
    it('reports at most 100 field errors', async () => {
      const owners = Array.from({ length: 25 }, () => ({ firstname: 1, lastname: 2, email: 3, phone: 4, ownership: 'x', birthdate: 5 }));
      const response = await service.request('POST', '/api/v1/organization', {
        token,
        body: { legalName: 1, legalType: 2, taxId: 3, owners },
      });
      expect(response.status).toBe(400);
      expect(response.body.errors).toHaveLength(100);
      expect(response.body.detail).toBe('At least 100 fields are invalid; the first 100 are listed.');
    });
  });

  describe('4. parentId and organizationId are ids whatever they hold', () => {
    it('answers 404 to parentId "" instead of creating a root outside the caller’s tree', async () => {
      const before = await service.sql('select count(*) from organization');
      const rest = await service.request('POST', '/api/v1/organization', { token, body: organizationBody({ parentId: '' }) });
      expect(rest.status).toBe(404);
      const viaGraphql = await service.graphql(
        'mutation ($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }',
        { i: organizationBody({ parentId: '' }) },
        token,
      );
      expect(viaGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(await service.sql('select count(*) from organization')).toEqual(before);
    });

    it('answers 404 to organizationId "" on a policy', async () => {
      const response = await service.request('POST', '/api/v1/policy', { token, body: policyBody({ organizationId: '' }) });
      expect(response.status).toBe(404);
    });
  });

  describe('6. low findings', () => {
    it('refuses a 19-digit cursor with 400', async () => {
      const after = Buffer.from('policy:9999999999999999999').toString('base64url');
      const response = await service.graphql(
        `{ organization(id: "${organizationId}") { policies(first: 1, after: "${after}") { edges { cursor } } } }`,
        {},
        token,
      );
      expect(response.status).toBe(400);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ path: 'after' }] });
    });

    it('refuses address data nested 5,000 deep or larger than 2 KB with 400', async () => {
      // Written out by hand: JSON.stringify itself overflows the stack at this depth.
      const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
      const withDeep = (body: Record<string, unknown>) => JSON.stringify(body).replace('"DEEP"', deep);
      const rest = await service.request('POST', '/api/v1/organization', {
        token,
        body: withDeep(organizationBody({ address: { city: 'x', dock: 'DEEP' } })),
      });
      expect(rest.status).toBe(400);
      expect(rest.body.errors).toEqual([{ path: 'address.additionalFields', message: 'must not nest more than 3 levels deep' }]);
      const viaGraphql = await service.request('POST', '/graphql', {
        token,
        headers: { 'idempotency-key': 'deep-address' },
        body: withDeep({
          query: 'mutation ($i: CreateOrganizationInput!) { createOrganization(input: $i) { id } }',
          variables: { i: organizationBody({ address: { additionalFields: { x: 'DEEP' } } }), unused: 'DEEP' },
        }),
      });
      expect(viaGraphql.status).toBe(400);
      expect(viaGraphql.body.errors[0].extensions.errors).toEqual([
        { path: 'address.additionalFields', message: 'must not nest more than 3 levels deep' },
      ]);
      const large = await service.request('POST', '/api/v1/organization', {
        token,
        body: organizationBody({ address: { junk: 'x'.repeat(3000) } }),
      });
      expect(large.body.errors).toEqual([{ path: 'address.additionalFields', message: 'must be at most 2048 bytes as JSON' }]);
      const fine = await service.request('POST', '/api/v1/organization', {
        token,
        body: organizationBody({ address: { a: { b: { c: 1 } } } }),
      });
      expect(fine.status).toBe(200);
      expect(fine.body.address).toEqual({ a: { b: { c: 1 } } });
    });

    it('honours operationName in a multi-operation document with an Idempotency-Key', async () => {
      const query = `mutation A($i: CreatePolicyInput!) { createPolicy(input: $i) { number petName } }
        mutation B($i: CreatePolicyInput!) { createPolicy(input: $i) { number } }`;
      const body = { query, operationName: 'A', variables: { i: policyBody({ petName: 'Multi' }) } };
      const headers = { 'idempotency-key': 'multi-operation' };
      const first = await service.request('POST', '/graphql', { token, body, headers });
      expect(first.status).toBe(200);
      expect(first.body.data.createPolicy.petName).toBe('Multi');
      const again = await service.request('POST', '/graphql', { token, body, headers });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.text).toBe(first.text);
      const two = `mutation { a: createPolicy(input: $i) { number } b: createPolicy(input: $i) { number } }`;
      const refused = await service.request('POST', '/graphql', {
        token,
        body: { query: two.replace('mutation', 'mutation ($i: CreatePolicyInput!)'), variables: { i: policyBody() } },
        headers: { 'idempotency-key': 'two-creates' },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    });
  });
});
