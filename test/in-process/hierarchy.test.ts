import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { ALL, accessMatrix, buildRestTree, organizationWritePaths, policyWritePaths } from '../support/access-matrix.js';

/**
 * The access matrix of contract section 3 for writes, through the operation core on the tree of
 * test/support/access-matrix.ts: each principal changes exactly what it may read and gets 404
 * elsewhere, writing nothing; creates under an organization out of reach are 404. Reads over
 * HTTP: test/e2e/hierarchy.test.ts; through GraphQL: test/graphql/hierarchy.test.ts.
 */
describe('organization hierarchy', () => {
  const service = useInProcessService();
  const org: Record<string, string> = {};
  const policy: Record<string, number> = {};
  const quote: Record<string, string> = {};

  beforeAll(() => buildRestTree(service, { org, policy, quote }));

  /** principal -> the organizations it may read; every other one must be a 404. */
  const MATRIX = accessMatrix(org);

  describe.each(MATRIX)('%s', (_name, claims, readable) => {
    it('REST writes on exactly the policies it may read (change, cancel, reinstate, renew): 404 elsewhere, and nothing written', async () => {
      const token = await service.token(claims());
      const before = await service.sql('select count(*)::int as n from policy_transaction');
      const policiesBefore = await service.sql('select count(*)::int as n from policy');
      for (const name of ALL) {
        for (const [path, body, inReach] of policyWritePaths(policy[name])) {
          const response = await service.request('POST', path, { token, body });
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
          const response = await service.request(method, path, { token, body });
          expect(response.status, `${method} ${path} (organization ${name})`).toBe(readable.includes(name) ? 200 : 404);
          if (readable.includes(name)) expect(response.body).toMatchObject({ id: org[name], version: 1 });
          else expect(response.body.code).toBe('NOT_FOUND');
        }
        // A real change, refused where out of reach (the empty patch above would write nothing anyway).
        if (!readable.includes(name)) {
          const refused = await service.request('PATCH', `/api/v1/organization/${org[name]}`, {
            token,
            body: { description: 'taken over' },
          });
          expect(refused.status, `PATCH organization ${name}`).toBe(404);
        }
      }
      // GraphQL updateOrganization follows the same rule: the organization, or NOT_FOUND and nothing written.
      // (A real change where allowed is organization-update.test.ts's: here every principal must find version 1.)
      for (const name of ALL.filter((candidate) => !readable.includes(candidate))) {
        const response = await service.graphql(
          `mutation { updateOrganization(id: "${org[name]}", input: { description: "taken over" }) { id } }`,
          {},
          token,
        );
        expect(response.body.errors?.[0]?.extensions?.code, `updateOrganization ${name}`).toBe('NOT_FOUND');
      }
      expect(await service.sql('select id, version from organization order by id')).toEqual(before);
      expect(await service.sql("select count(*)::int as n from event where type = 'organization.updated'")).toEqual(events);
    });
  });

  it("refuses a parentId outside the caller's reach with 404 and writes nothing", async () => {
    const token = await service.token({ sub: 'someone', org: org.D });
    const before = await service.sql('select id from organization');
    for (const parentId of [org.B, org.C2, org.A, randomUUID(), 'not-a-uuid']) {
      const response = await service.request('POST', '/api/v1/organization', { token, body: organizationBody({ parentId }) });
      expect(response.status, parentId).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    expect(await service.sql('select id from organization')).toHaveLength(before.length);
  });

  it("refuses an organizationId outside the caller's reach with 404 and writes nothing", async () => {
    const token = await service.token({ sub: 'someone', org: org.D });
    const before = await service.sql('select id from policy');
    for (const organizationId of [org.C, org.C2, randomUUID(), 'nope']) {
      const response = await service.request('POST', '/api/v1/policy', { token, body: policyBody({ organizationId }) });
      expect(response.status, organizationId).toBe(404);
    }
    expect(await service.sql('select id from policy')).toHaveLength(before.length);
  });

  it("refuses a quote for an organizationId outside the caller's reach with 404 and writes nothing", async () => {
    const token = await service.token({ sub: 'someone', org: org.D });
    const before = await service.sql('select id from quote');
    for (const organizationId of [org.C, org.C2, randomUUID(), 'nope']) {
      const response = await service.request('POST', '/api/v1/quote', { token, body: policyBody({ organizationId }) });
      expect(response.status, organizationId).toBe(404);
    }
    expect(await service.sql('select id from quote')).toHaveLength(before.length);
  });
});
