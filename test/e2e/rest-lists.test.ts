import { describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { insertOrganizations, insertPolicies, insertTree } from '../support/rows.js';
import { useTestService } from '../support/test-service.js';

/**
 * GET /api/v1/organization (spec section 10): children of parentId, or the caller's entry points.
 * Refused parameters and parents out of reach, for both lists: test/in-process/rest-lists.
 */
describe('GET /api/v1/organization', () => {
  const service = useTestService();

  const create = async (sub: string, body: Record<string, unknown> = {}) => {
    const response = await request(service.url, 'POST', '/api/v1/organization', {
      token: await service.token({ sub }),
      body: organizationBody(body),
    });
    expect(response.status, response.text).toBe(200);
    return response.body.id as string;
  };

  it('without parentId: a sub-only token finds the root it created (and not what lies below it)', async () => {
    const root = await create('list-alice', { name: 'Alice Root' });
    await create('list-alice', { name: 'Alice Child', parentId: root });
    const response = await request(service.url, 'GET', '/api/v1/organization', { token: await service.token({ sub: 'list-alice' }) });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      data: [{ id: root, name: 'Alice Root', parentId: null, version: 1 }],
      hasMore: false,
      nextCursor: null,
    });
    expect(response.body.data).toHaveLength(1);
    // Items are the read's shape (contract section 18), key for key.
    const read = await request(service.url, 'GET', `/api/v1/organization/${root}`, { token: await service.token({ sub: 'list-alice' }) });
    expect(JSON.stringify(response.body.data[0])).toBe(JSON.stringify(read.body));
  });

  it('with parentId: pages through the children with no repeats or gaps while others are inserted between pages', async () => {
    const parent = await create('list-bob');
    await insertOrganizations(
      service,
      Array.from({ length: 25 }, (_, i) => ({ parentId: parent, name: `c${i + 1}`, ownerSub: 'list-bob' })),
    );
    const token = await service.token({ sub: 'list-bob' });
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const response = await request(
        service.url,
        'GET',
        `/api/v1/organization?parentId=${parent}&limit=10${after ? `&after=${after}` : ''}`,
        { token },
      );
      expect(response.status, response.text).toBe(200);
      seen.push(...response.body.data.map((item: { name: string }) => item.name));
      if (pages === 0) await insertOrganizations(service, [{ parentId: parent, name: 'c26', ownerSub: 'list-bob' }]);
      after = response.body.nextCursor;
      expect(response.body.hasMore).toBe(after !== null);
      pages++;
    } while (after && pages < 10);
    expect(seen).toEqual(Array.from({ length: 26 }, (_, i) => `c${i + 1}`));
  });
});

/** GET /api/v1/policy (spec section 10): an organization's policies, or its whole subtree's. */
describe('GET /api/v1/policy', () => {
  const service = useTestService();

  const tree = (sub: string) => insertTree(service, sub);
  let nextNumber = 7_100_000;
  const policiesIn = (organizationIds: string[]) =>
    insertPolicies(
      service,
      organizationIds.map((organizationId) => ({ organizationId, number: nextNumber++ })),
    );

  const pageThrough = async (token: string, query: string, between?: (page: number) => Promise<void>) => {
    const numbers: number[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const response = await request(service.url, 'GET', `/api/v1/policy?${query}${after ? `&after=${after}` : ''}`, { token });
      expect(response.status, response.text).toBe(200);
      numbers.push(...response.body.data.map((item: { number: number }) => item.number));
      await between?.(pages);
      after = response.body.nextCursor;
      expect(response.body.hasMore).toBe(after !== null);
      pages++;
    } while (after && pages < 50);
    return numbers;
  };

  it('an ancestor lists its whole subtree page by page, with no repeats or gaps while policies are inserted between pages', async () => {
    const { root, child, grandchild } = await tree('plist-alice');
    const start = nextNumber;
    // Interleaved over the three levels, so creation order differs from any per-organization order.
    for (let i = 0; i < 9; i++) await policiesIn([root, child, grandchild]);
    const token = await service.token({ sub: 'plist-alice' });
    const numbers = await pageThrough(token, `organizationId=${root}&includeDescendants=true&limit=10`, async (page) => {
      if (page === 0) await policiesIn([grandchild, root]);
    });
    expect(numbers).toEqual(Array.from({ length: 29 }, (_, i) => start + i));
    // Without includeDescendants: the organization's own policies only.
    const own = await pageThrough(token, `organizationId=${child}&limit=4`);
    expect(own).toEqual(Array.from({ length: 9 }, (_, i) => start + 1 + 3 * i));
    // From the middle: the child and the grandchild, not the root.
    const middle = await pageThrough(token, `organizationId=${child}&includeDescendants=true&limit=100`);
    expect(middle).toEqual(numbers.filter((_, i) => (i < 27 ? i % 3 !== 0 : i === 27)));
  });

  it('items are the policy read shape (id included); organizationId defaults to the token’s org', async () => {
    const { child, grandchild } = await tree('plist-bob');
    await policiesIn([grandchild]);
    const response = await request(service.url, 'GET', '/api/v1/policy?includeDescendants=true', {
      token: await service.token({ sub: 'someone-else', org: child }),
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.hasMore).toBe(false);
    const [item] = response.body.data;
    const read = await request(service.url, 'GET', `/api/v1/policy/${item.number}`, {
      token: await service.token({ sub: 'someone-else', org: child }),
    });
    expect(JSON.stringify(item)).toBe(JSON.stringify(read.body));
    expect(item.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(item.organization).toEqual({ id: grandchild, name: 'plist-bob grandchild', parentId: child });
    expect(item.coverage.slug).toBe('accident-only');
  });
});
