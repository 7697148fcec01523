import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { clientOf, useTestService } from '../support/test-service.js';
import { ALL, accessMatrix, buildRestTree, policyReadPaths } from '../support/access-matrix.js';

/**
 * The access matrix of contract section 3 on a tree five levels deep (reads through REST here;
 * through GraphQL in process in test/graphql/hierarchy.test.ts; writes and creates out of reach
 * through the operation core in test/in-process/hierarchy.test.ts):
 *
 *   A (created by alice, no org claim)
 *   ├── B (alice acting for A)
 *   │   └── C (bob acting for B)
 *   │       └── D (dave acting for C)
 *   │           └── E (dave acting for D)
 *   └── B2 (alice, parentId A)
 *       └── C2 (cara acting for B2)
 */
describe('organization hierarchy', () => {
  const service = useTestService();
  const org: Record<string, string> = {};
  const policy: Record<string, number> = {};
  const quote: Record<string, string> = {};

  beforeAll(() => buildRestTree(clientOf(service), { org, policy, quote }));

  it('records each parent as created', async () => {
    const parents = await service.sql<{ id: string; parent_id: string | null; depth: number }>(
      'select id, parent_id, cardinality(path) as depth from organization',
    );
    const byId = new Map(parents.map((row) => [row.id, row]));
    expect(byId.get(org.A)).toMatchObject({ parent_id: null, depth: 1 });
    expect(byId.get(org.B)).toMatchObject({ parent_id: org.A, depth: 2 });
    expect(byId.get(org.B2)).toMatchObject({ parent_id: org.A, depth: 2 });
    expect(byId.get(org.C)).toMatchObject({ parent_id: org.B, depth: 3 });
    expect(byId.get(org.E)).toMatchObject({ parent_id: org.D, depth: 5 });
    expect(byId.get(org.C2)).toMatchObject({ parent_id: org.B2, depth: 3 });
  });

  /** principal -> the organizations it may read; every other one must be a 404. */
  const MATRIX = accessMatrix(org);

  describe.each(MATRIX)('%s', (_name, claims, readable) => {
    it('REST reads exactly the allowed organizations, policies and quotes', async () => {
      const token = await service.token(claims());
      for (const name of ALL) {
        const expected = readable.includes(name) ? 200 : 404;
        const organization = await request(service.url, 'GET', `/api/v1/organization/${org[name]}`, { token });
        expect(organization.status, `organization ${name}`).toBe(expected);
        const read = await request(service.url, 'GET', `/api/v1/policy/${policy[name]}`, { token });
        expect(read.status, `policy of ${name}`).toBe(expected);
        for (const path of policyReadPaths(policy[name])) {
          expect((await request(service.url, 'GET', path, { token })).status, `${path} (policy of ${name})`).toBe(expected);
        }
        const quoted = await request(service.url, 'GET', `/api/v1/quote/${quote[name]}`, { token });
        expect(quoted.status, `quote of ${name}`).toBe(expected);
        if (expected === 200) {
          expect(organization.body.id).toBe(org[name]);
          expect(read.body.organization.id).toBe(org[name]);
          expect(quoted.body.organizationId).toBe(org[name]);
        }
      }
    });

    // What these GraphQL answers hold (each allowed read, each refused one NOT_FOUND) is checked
    // in process, with the same tree and principals: test/graphql/hierarchy.test.ts.
    it('GraphQL answers the allowed and the refused reads with HTTP 200', async () => {
      const token = await service.token(claims());
      const fields = ALL.map(
        (name) => `o${name}: organization(id: "${org[name]}") { id } p${name}: policy(number: ${policy[name]}) { number }`,
      );
      const response = await graphql(service.url, `{ ${fields.join('\n')} }`, {}, token);
      expect(response.status).toBe(200);
      // Quotes in a request of their own: GRAPHQL_MAX_ALIASES is 15.
      const quotes = await graphql(
        service.url,
        `{ ${ALL.map((name) => `q${name}: quote(id: "${quote[name]}") { id }`).join('\n')} }`,
        {},
        token,
      );
      expect(quotes.status).toBe(200);
    });
  });

  it('answers forbidden exactly as missing: same status, headers and body', async () => {
    const token = await service.token({ sub: 'someone', org: org.D });
    const pairs = [
      [`/api/v1/organization/${org.B}`, `/api/v1/organization/${randomUUID()}`, '/api/v1/organization/not-a-uuid'],
      ...policyReadPaths(policy.B).map((path, i) => [path, policyReadPaths(987654321)[i], policyReadPaths(-5)[i]]),
      [`/api/v1/quote/${quote.B}`, `/api/v1/quote/${randomUUID()}`, '/api/v1/quote/not-a-uuid'],
    ];
    for (const [forbidden, ...missing] of pairs) {
      const a = await request(service.url, 'GET', forbidden, { token });
      for (const path of missing) {
        const b = await request(service.url, 'GET', path, { token });
        expect(b.status).toBe(404);
        expect(b.text).toBe(a.text);
        const headerNames = (r: typeof a) => [...r.headers.keys()].filter((k) => !['date', 'x-request-id'].includes(k)).sort();
        expect(headerNames(b)).toEqual(headerNames(a));
        expect(b.headers.get('content-length')).toBe(a.headers.get('content-length'));
      }
    }
  });

  it('creates under a reachable parentId, and under the org claim by default', async () => {
    const token = await service.token({ sub: 'someone', org: org.B });
    const explicit = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody({ parentId: org.D }) });
    expect(explicit.status).toBe(200);
    expect(explicit.body.parentId).toBe(org.D);
    const implicit = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(implicit.body.parentId).toBe(org.B);
  });

  it('puts a policy under the org claim by default, and needs an organization from somewhere', async () => {
    const withOrg = await request(service.url, 'POST', '/api/v1/policy', {
      token: await service.token({ sub: 'someone', org: org.E }),
      body: policyBody(),
    });
    expect(withOrg.status).toBe(200);
    expect(withOrg.body.organization.id).toBe(org.E);
    const without = await request(service.url, 'POST', '/api/v1/policy', {
      token: await service.token({ sub: 'alice' }),
      body: policyBody(),
    });
    expect(without.status).toBe(400);
    expect(without.body.errors).toEqual([{ path: 'organizationId', message: 'is required when the token carries no org claim' }]);
  });
});
