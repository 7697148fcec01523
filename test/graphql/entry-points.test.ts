import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { useInProcessSchema, type Claims } from '../support/in-process.js';

/**
 * Viewer.organizations (spec section 10): where a caller starts, the organizations it may
 * access whose parent it may not. A sub-only token finds the root it created there.
 */
describe('Viewer.organizations', () => {
  const api = useInProcessSchema();
  const org: Record<string, string> = {};

  const create = async (name: string, principal: Claims, parentId?: string) => {
    const response = await api.run(`mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }`, {
      principal,
      variables: { input: organizationBody({ legalName: name, ...(parentId ? { parentId } : {}) }) },
    });
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    org[name] = response.data.createOrganization.id;
  };

  beforeAll(async () => {
    await create('R', { sub: 'alice' });
    await create('R1', { sub: 'alice' }, org.R);
    await create('C', { sub: 'bob', org: org.R }, org.R1);
    await create('C1', { sub: 'bob' }, org.C);
    await create('D', { sub: 'dave' });
  });

  const entryPoints = async (principal: Claims, first = 20, after: string | null = null) => {
    const response = await api.run(
      `query($first: Int!, $after: String) { viewer { organizations(first: $first, after: $after) {
        edges { node { legalName } } pageInfo { hasNextPage hasPreviousPage endCursor } } } }`,
      { principal, variables: { first, after } },
    );
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    const connection = response.data.viewer.organizations;
    return { names: connection.edges.map((edge: { node: { legalName: string } }) => edge.node.legalName), pageInfo: connection.pageInfo };
  };

  const CASES: Array<[string, { sub: string; org?: string }, string[]]> = [
    ['a sub-only token finds the root it created, not what lies below it', { sub: 'alice' }, ['R']],
    ['a creator below another tree starts at what it created', { sub: 'bob' }, ['C']],
    ['an org claim starts at that organization', { sub: 'zed', org: '' }, ['R1']],
    ['an org claim and a root of its own: both, oldest first', { sub: 'dave', org: '' }, ['R1', 'D']],
    ['an org claim covering what the sub created: the claim only', { sub: 'bob', org: '' }, ['R']],
    ['a stranger: nothing', { sub: 'mallory' }, []],
  ];
  it.each(CASES)('%s', async (_name, claims, expected) => {
    // Org claims name organizations created in beforeAll.
    const principal = claims.org === '' ? { ...claims, org: org[claims.sub === 'bob' ? 'R' : 'R1'] } : claims;
    expect((await entryPoints(principal)).names).toEqual(expected);
  });

  it('pages in creation order with cursors', async () => {
    const principal = { sub: 'dave', org: org.R1 };
    const first = await entryPoints(principal, 1);
    expect(first).toMatchObject({ names: ['R1'], pageInfo: { hasNextPage: true, hasPreviousPage: false } });
    const second = await entryPoints(principal, 1, first.pageInfo.endCursor);
    expect(second).toMatchObject({ names: ['D'], pageInfo: { hasNextPage: false, hasPreviousPage: true } });
  });
});
