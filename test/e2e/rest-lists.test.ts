import { describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { insertOrganizations } from '../support/rows.js';
import { useTestService } from '../support/test-service.js';

/** GET /api/v1/organization (spec section 10): children of parentId, or the caller's entry points. */
describe('GET /api/v1/organization', () => {
  const service = useTestService();

  const create = async (sub: string, body: Record<string, unknown> = {}) => {
    const response = await request(service.url, 'POST', '/api/v1/organization', { token: await service.token({ sub }), body: organizationBody(body) });
    expect(response.status, response.text).toBe(200);
    return response.body.id as string;
  };

  it('without parentId: a sub-only token finds the root it created (and not what lies below it)', async () => {
    const root = await create('list-alice', { name: 'Alice Root' });
    await create('list-alice', { name: 'Alice Child', parentId: root });
    const response = await request(service.url, 'GET', '/api/v1/organization', { token: await service.token({ sub: 'list-alice' }) });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [{ id: root, name: 'Alice Root', parentId: null }], hasMore: false, nextCursor: null });
  });

  it('with parentId: pages through the children with no repeats or gaps while others are inserted between pages', async () => {
    const parent = await create('list-bob');
    await insertOrganizations(service, Array.from({ length: 25 }, (_, i) => ({ parentId: parent, name: `c${i + 1}`, ownerSub: 'list-bob' })));
    const token = await service.token({ sub: 'list-bob' });
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const response = await request(service.url, 'GET', `/api/v1/organization?parentId=${parent}&limit=10${after ? `&after=${after}` : ''}`, { token });
      expect(response.status, response.text).toBe(200);
      seen.push(...response.body.data.map((item: { name: string }) => item.name));
      if (pages === 0) await insertOrganizations(service, [{ parentId: parent, name: 'c26', ownerSub: 'list-bob' }]);
      after = response.body.nextCursor;
      expect(response.body.hasMore).toBe(after !== null);
      pages++;
    } while (after && pages < 10);
    expect(seen).toEqual(Array.from({ length: 26 }, (_, i) => `c${i + 1}`));
  });

  it('answers 404 for a parent out of reach or unknown, and 400 for a bad limit or cursor', async () => {
    const other = await create('list-carol');
    const token = await service.token({ sub: 'list-dave' });
    for (const parentId of [other, '8b5e7d0e-3f43-4a7a-9d22-3c6f1b1c2d3e', 'not-a-uuid', '']) {
      const response = await request(service.url, 'GET', `/api/v1/organization?parentId=${parentId}`, { token });
      expect(response.status, parentId).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    const carol = await service.token({ sub: 'list-carol' });
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=10&limit=20', 'after=nonsense', `after=${Buffer.from('policy:1').toString('base64url')}`]) {
      const response = await request(service.url, 'GET', `/api/v1/organization?${query}`, { token: carol });
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors[0].path, query).toBe(query.startsWith('after') ? 'after' : 'limit');
    }
  });
});
