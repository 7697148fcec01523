import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';
import { ALL, accessMatrix, buildTestTree, organizationWritePaths, policyReadPaths, policyWritePaths } from '../support/access-matrix.js';

/**
 * The access matrix of contract section 3 on a tree five levels deep (through REST here; through
 * GraphQL in process in test/graphql/hierarchy.test.ts):
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

  const create = async (name: string, claims: { sub: string; org?: string }, parentId?: string) => {
    const token = await service.token(claims);
    const body = organizationBody({ legalName: `Org ${name}`, ...(parentId ? { parentId } : {}) });
    const response = await request(service.url, 'POST', '/api/v1/organization', { token, body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    org[name] = response.body.id;
    policy[name] = 1000 + ALL.indexOf(name);
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId: org[name], number: policy[name] }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const quoted = await request(service.url, 'POST', '/api/v1/quote', { token, body: policyBody({ organizationId: org[name] }) });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
    quote[name] = quoted.body.id;
  };

  beforeAll(() => buildTestTree(create, org));

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

    it('REST writes on exactly the policies it may read (change, cancel, reinstate, renew): 404 elsewhere, and nothing written', async () => {
      const token = await service.token(claims());
      const before = await service.sql('select count(*)::int as n from policy_transaction');
      const policiesBefore = await service.sql('select count(*)::int as n from policy');
      for (const name of ALL) {
        for (const [path, body, inReach] of policyWritePaths(policy[name])) {
          const response = await request(service.url, 'POST', path, { token, body });
          expect(response.status, `${path} (policy of ${name})`).toBe(readable.includes(name) ? inReach.status : 404);
          expect(response.body.code).toBe(readable.includes(name) ? inReach.code : 'NOT_FOUND');
        }
      }
      expect(await service.sql('select count(*)::int as n from policy_transaction')).toEqual(before);
      expect(await service.sql('select count(*)::int as n from policy')).toEqual(policiesBefore);
    });

    it('REST changes exactly the organizations it may read: a descendant cannot change an ancestor, 404 elsewhere, and nothing written', async () => {
      const token = await service.token(claims());
      const before = await service.sql('select id, version from organization order by id');
      const events = await service.sql("select count(*)::int as n from event where type = 'organization.updated'");
      for (const name of ALL) {
        for (const [method, path, body] of organizationWritePaths(org[name])) {
          const response = await request(service.url, method, path, { token, body });
          expect(response.status, `${method} ${path} (organization ${name})`).toBe(readable.includes(name) ? 200 : 404);
          if (readable.includes(name)) expect(response.body).toMatchObject({ id: org[name], version: 1 });
          else expect(response.body.code).toBe('NOT_FOUND');
        }
        // A real change, refused where out of reach (the empty patch above would write nothing anyway).
        if (!readable.includes(name)) {
          const refused = await request(service.url, 'PATCH', `/api/v1/organization/${org[name]}`, {
            token,
            body: { description: 'taken over' },
          });
          expect(refused.status, `PATCH organization ${name}`).toBe(404);
        }
      }
      // GraphQL updateOrganization follows the same rule: the organization, or NOT_FOUND and nothing written.
      // (A real change where allowed is organization-update.test.ts's: here every principal must find version 1.)
      for (const name of ALL.filter((candidate) => !readable.includes(candidate))) {
        const response = await graphql(
          service.url,
          `mutation { updateOrganization(id: "${org[name]}", input: { description: "taken over" }) { id } }`,
          {},
          token,
        );
        expect(response.body.errors?.[0]?.extensions?.code, `updateOrganization ${name}`).toBe('NOT_FOUND');
      }
      expect(await service.sql('select id, version from organization order by id')).toEqual(before);
      expect(await service.sql("select count(*)::int as n from event where type = 'organization.updated'")).toEqual(events);
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

  it("refuses a parentId outside the caller's reach with 404 and writes nothing", async () => {
    const token = await service.token({ sub: 'someone', org: org.D });
    const before = await service.sql('select id from organization');
    for (const parentId of [org.B, org.C2, org.A, randomUUID(), 'not-a-uuid']) {
      const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody({ parentId }) });
      expect(response.status, parentId).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    expect(await service.sql('select id from organization')).toHaveLength(before.length);
  });

  it('creates under a reachable parentId, and under the org claim by default', async () => {
    const token = await service.token({ sub: 'someone', org: org.B });
    const explicit = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody({ parentId: org.D }) });
    expect(explicit.status).toBe(200);
    expect(explicit.body.parentId).toBe(org.D);
    const implicit = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(implicit.body.parentId).toBe(org.B);
  });

  it("refuses an organizationId outside the caller's reach with 404 and writes nothing", async () => {
    const token = await service.token({ sub: 'someone', org: org.D });
    const before = await service.sql('select id from policy');
    for (const organizationId of [org.C, org.C2, randomUUID(), 'nope']) {
      const response = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId }) });
      expect(response.status, organizationId).toBe(404);
    }
    expect(await service.sql('select id from policy')).toHaveLength(before.length);
  });

  it("refuses a quote for an organizationId outside the caller's reach with 404 and writes nothing", async () => {
    const token = await service.token({ sub: 'someone', org: org.D });
    const before = await service.sql('select id from quote');
    for (const organizationId of [org.C, org.C2, randomUUID(), 'nope']) {
      const response = await request(service.url, 'POST', '/api/v1/quote', { token, body: policyBody({ organizationId }) });
      expect(response.status, organizationId).toBe(404);
    }
    expect(await service.sql('select id from quote')).toHaveLength(before.length);
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
