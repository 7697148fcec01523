import { describe, expect, it } from 'vitest';
import { useInProcessService } from '../support/in-process.js';
import { insertOrganizations, insertTree } from '../support/rows.js';

/**
 * The REST lists' refusals (spec section 10), through the operation core: a parent or an
 * organization out of reach or unknown (404), bad parameters or nothing to list (400). The
 * lists and their pages over HTTP: test/e2e/rest-lists.
 */
const service = useInProcessService();

describe('GET /api/v1/organization', () => {
  it('answers 404 for a parent out of reach or unknown, and 400 for a bad limit or cursor', async () => {
    const [other] = await insertOrganizations(service, [{ ownerSub: 'list-carol' }]);
    const token = await service.token({ sub: 'list-dave' });
    for (const parentId of [other, '8b5e7d0e-3f43-4a7a-9d22-3c6f1b1c2d3e', 'not-a-uuid', '']) {
      const response = await service.request('GET', `/api/v1/organization?parentId=${parentId}`, { token });
      expect(response.status, parentId).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    const carol = await service.token({ sub: 'list-carol' });
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=1.5',
      'limit=10&limit=20',
      'after=nonsense',
      `after=${Buffer.from('policy:1').toString('base64url')}`,
    ]) {
      const response = await service.request('GET', `/api/v1/organization?${query}`, { token: carol });
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors[0].path, query).toBe(query.startsWith('after') ? 'after' : 'limit');
    }
  });
});

describe('GET /api/v1/policy', () => {
  const tree = (sub: string) => insertTree(service, sub);

  it('answers 404 for an organization out of reach or unknown, and 400 for bad parameters or nothing to list', async () => {
    const { root } = await tree('plist-carol');
    const stranger = await service.token({ sub: 'plist-dave' });
    for (const organizationId of [root, '8b5e7d0e-3f43-4a7a-9d22-3c6f1b1c2d3e', 'not-a-uuid', '']) {
      for (const includeDescendants of ['true', 'false']) {
        const response = await service.request(
          'GET',
          `/api/v1/policy?organizationId=${organizationId}&includeDescendants=${includeDescendants}`,
          { token: stranger },
        );
        expect(response.status, organizationId).toBe(404);
        expect(response.body.code).toBe('NOT_FOUND');
      }
    }
    const noOrg = await service.request('GET', '/api/v1/policy', { token: stranger });
    expect(noOrg.status).toBe(400);
    expect(noOrg.body.errors).toEqual([{ path: 'organizationId', message: 'is required when the token carries no org claim' }]);
    const carol = await service.token({ sub: 'plist-carol' });
    const bad: Array<[string, string]> = [
      ['includeDescendants=yes', 'includeDescendants'],
      ['includeDescendants=true&includeDescendants=false', 'includeDescendants'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['after=nonsense', 'after'],
      [`after=${Buffer.from('organization:1').toString('base64url')}`, 'after'],
    ];
    for (const [query, path] of bad) {
      const response = await service.request('GET', `/api/v1/policy?organizationId=${root}&${query}`, { token: carol });
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors[0].path, query).toBe(path);
    }
  });
});
