import { beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/database/database.js';
import { SEARCH_START } from '../../src/graphql/search-position.js';
import { searchPolicies as searchPoliciesOf } from '../../src/policies/policy-search.js';
import { ALL, accessMatrix, buildRestTree, type RestTree } from '../support/access-matrix.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { clientOf, useTestService } from '../support/test-service.js';

/**
 * Search (contract section 23) against the real service: typos forgiven ("Jon Smyth" finds
 * "John Smith", a pet's name with a letter wrong is found), a number first, and nothing out of
 * the caller's reach, whoever asks (the access matrix of test/support/access-matrix.ts, and a
 * stranger's tree holding the same names).
 */
const SEARCH_POLICIES = `query ($q: String!, $first: Int, $after: String, $organizationId: ID) {
  viewer { searchPolicies(q: $q, first: $first, after: $after, organizationId: $organizationId) {
    edges { cursor node { number ownerFirstname ownerLastname petName internalID organization { id } } }
    pageInfo { hasNextPage hasPreviousPage endCursor }
  } }
}`;
const SEARCH_ORGANIZATIONS = `query ($q: String!, $first: Int, $after: String, $organizationId: ID) {
  viewer { searchOrganizations(q: $q, first: $first, after: $after, organizationId: $organizationId) {
    edges { cursor node { id legalName } }
    pageInfo { hasNextPage endCursor }
  } }
}`;

const CREATED = ['A', 'B', 'B2', 'C', 'D', 'E', 'C2'];

describe('search', () => {
  const service = useTestService();
  const tree: RestTree = { org: {}, policy: {}, quote: {} };
  let alice: string;
  const stranger = { rootId: '', number: 0 };

  async function searchPolicies(token: string, variables: Record<string, unknown>) {
    const response = await graphql(service.url, SEARCH_POLICIES, { first: 100, ...variables }, token);
    expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
    return response.body.data.viewer.searchPolicies;
  }
  /** The test tree's policies as search lists equal matches: newest first (buildTestTree's order of creation, reversed). */
  const newestFirst = (names: string[]) =>
    CREATED.filter((name) => names.includes(name))
      .map((name) => tree.policy[name])
      .reverse();
  const numbers = (connection: { edges: Array<{ node: { number: number } }> }) => connection.edges.map((edge) => edge.node.number);

  beforeAll(async () => {
    // The test tree, each organization "Org <name>" with one policy of Rosa Diaz's pet Biscuit.
    await buildRestTree(clientOf(service), tree);
    alice = await service.token({ sub: 'alice', org: tree.org.A });
    const create = async (token: string, body: Record<string, unknown>) => {
      const response = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody(body) });
      expect(response.status, response.text).toBe(200);
      return response.body.number as number;
    };
    // In A: John Smith's Rex, and two whose keys hold digits.
    await create(alice, { number: 3001, ownerFirstname: 'John', ownerLastname: 'Smith', petName: 'Rex' });
    await create(alice, { number: 3002, ownerFirstname: 'Mary', ownerLastname: 'Jones', petName: 'Pickles' });
    await create(alice, { number: 3003, ownerFirstname: 'Ann', ownerLastname: 'Lee', petName: 'Noodle', internalID: 'crm 3002' });
    // A stranger's tree holds the same names: never found by anyone else.
    const zed = await service.token({ sub: 'zed' });
    const root = await request(service.url, 'POST', '/api/v1/organization', { token: zed, body: organizationBody({ legalName: 'Org Z' }) });
    stranger.rootId = root.body.id;
    stranger.number = await create(zed, { organizationId: stranger.rootId, number: 2000 });
    await create(zed, { organizationId: stranger.rootId, number: 2001, ownerFirstname: 'John', ownerLastname: 'Smith', petName: 'Rex' });
  });

  it('finds "John Smith" by "Jon Smyth", and by "smyth" alone', async () => {
    expect(numbers(await searchPolicies(alice, { q: 'Jon Smyth' }))).toEqual([3001]);
    expect(numbers(await searchPolicies(alice, { q: 'smyth' }))).toEqual([3001]);
    expect(numbers(await searchPolicies(alice, { q: '  JOHN  smith ' }))).toEqual([3001]);
  });

  it("finds a pet's name with one letter wrong, and by its first letters as typed", async () => {
    // Newest first among equal matches.
    expect(numbers(await searchPolicies(alice, { q: 'Biscuot' }))).toEqual(newestFirst(ALL));
    expect(numbers(await searchPolicies(alice, { q: 'bisc' }))).toEqual(newestFirst(ALL));
    expect(numbers(await searchPolicies(alice, { q: 'Noodel' }))).toEqual([3003]);
  });

  it('puts the policy whose number is the query first, then the texts that hold it', async () => {
    expect(numbers(await searchPolicies(alice, { q: '3002' }))).toEqual([3002, 3003]);
    // A number out of reach is not found, and says nothing.
    expect(numbers(await searchPolicies(alice, { q: String(stranger.number) }))).toEqual([]);
  });

  it.each(accessMatrix(tree.org))('%s: finds exactly the policies and organizations it may access', async (_, claims, readable) => {
    const token = await service.token(claims());
    const expected = newestFirst(readable);
    expect(numbers(await searchPolicies(token, { q: 'biscuit' }))).toEqual(expected);
    expect(numbers(await searchPolicies(token, { q: 'rosa diaz' }))).toEqual(expected);
    const organizations = await graphql(service.url, SEARCH_ORGANIZATIONS, { q: 'org', first: 100 }, token);
    const names = organizations.body.data.viewer.searchOrganizations.edges.map(
      (edge: { node: { legalName: string } }) => edge.node.legalName,
    );
    expect(names.sort()).toEqual(readable.map((name) => `Org ${name}`).sort());
  });

  it("finds the stranger's policies for the stranger only", async () => {
    const zed = await service.token({ sub: 'zed' });
    expect(numbers(await searchPolicies(zed, { q: 'Jon Smyth' }))).toEqual([2001]);
    expect(numbers(await searchPolicies(alice, { q: 'Jon Smyth' }))).not.toContain(2001);
  });

  it("looks in organizationId's subtree when given, and answers NOT_FOUND for one out of reach", async () => {
    const inB = await searchPolicies(alice, { q: 'biscuit', organizationId: tree.org.B });
    expect(numbers(inB)).toEqual(newestFirst(['B', 'C', 'D', 'E']));
    const bob = await service.token({ sub: 'bob' });
    for (const organizationId of [tree.org.A, stranger.rootId, 'not-an-id']) {
      const response = await graphql(service.url, SEARCH_POLICIES, { q: 'biscuit', organizationId }, bob);
      expect(response.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    const organizations = await graphql(service.url, SEARCH_ORGANIZATIONS, { q: 'org', organizationId: tree.org.C }, alice);
    const names = organizations.body.data.viewer.searchOrganizations.edges.map(
      (edge: { node: { legalName: string } }) => edge.node.legalName,
    );
    expect(names.sort()).toEqual(['Org C', 'Org D', 'Org E']);
  });

  it('pages with cursors that hold rank and position: every match once, best first', async () => {
    const seen: number[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const connection = await searchPolicies(alice, { q: 'biscuit', first: 2, after });
      seen.push(...numbers(connection));
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(newestFirst(ALL));
  });

  it('refuses a q of fewer than 2 or more than 100 characters, a NUL, and a cursor of another list, each a 400 on its argument', async () => {
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ q: 'a' }, 'q'],
      [{ q: '  a  ' }, 'q'],
      [{ q: 'x'.repeat(101) }, 'q'],
      [{ q: 'ab\u0000' }, 'q'],
      [{ q: 'biscuit', first: 0 }, 'first'],
      [{ q: 'biscuit', after: Buffer.from('policy:12').toString('base64url') }, 'after'],
      [{ q: 'biscuit', after: Buffer.from('policy-search:1002:1').toString('base64url') }, 'after'],
      [{ q: 'biscuit', after: 'not a cursor' }, 'after'],
    ];
    for (const [variables, path] of refusals) {
      const response = await graphql(service.url, SEARCH_POLICIES, variables, alice);
      expect(response.status, JSON.stringify(variables)).toBe(400);
      expect(response.body.errors[0].extensions, JSON.stringify(variables)).toEqual({
        code: 'BAD_USER_INPUT',
        errors: [expect.objectContaining({ path })],
      });
    }
    // A q of 100 characters is fine, and one of no letters or digits matches nothing.
    expect(numbers(await searchPolicies(alice, { q: 'b'.repeat(100) }))).toEqual([]);
    expect(numbers(await searchPolicies(alice, { q: '!?' }))).toEqual([]);
  });

  it('answers the same on REST: GET /api/v1/policy?q= and GET /api/v1/organization?q=, paged by nextCursor', async () => {
    const found = await request(service.url, 'GET', '/api/v1/policy?q=Jon%20Smyth', { token: alice });
    expect(found.status, found.text).toBe(200);
    expect(found.body.data.map((policy: { number: number }) => policy.number)).toEqual([3001]);
    expect(found.body.data[0]).toMatchObject({ ownerFirstname: 'John', ownerLastname: 'Smith', petName: 'Rex' });
    const seen: number[] = [];
    let after = '';
    for (let page = 0; page < 10; page++) {
      const response = await request(service.url, 'GET', `/api/v1/policy?q=biscuit&limit=3${after}`, { token: alice });
      seen.push(...response.body.data.map((policy: { number: number }) => policy.number));
      if (!response.body.hasMore) break;
      after = `&after=${response.body.nextCursor}`;
    }
    expect(seen).toEqual(newestFirst(ALL));
    const inB = await request(service.url, 'GET', `/api/v1/policy?q=biscuit&organizationId=${tree.org.B}`, { token: alice });
    expect(inB.body.data.map((policy: { number: number }) => policy.number)).toEqual(newestFirst(['B', 'C', 'D', 'E']));
    const outOfReach = await request(service.url, 'GET', `/api/v1/policy?q=biscuit&organizationId=${stranger.rootId}`, { token: alice });
    expect(outOfReach.status).toBe(404);
    const organizations = await request(service.url, 'GET', `/api/v1/organization?q=org&organizationId=${tree.org.C}`, { token: alice });
    expect(organizations.status, organizations.text).toBe(200);
    expect(organizations.body.data.map((organization: { legalName: string }) => organization.legalName).sort()).toEqual([
      'Org C',
      'Org D',
      'Org E',
    ]);
    expect(organizations.body.data[0]).toHaveProperty('parentId');
  });

  it('answers 400 on REST for a bad q, a bad cursor, and parameters a search cannot be combined with', async () => {
    const cases: Array<[string, string]> = [
      ['/api/v1/policy?q=a', 'q'],
      [`/api/v1/policy?q=${'x'.repeat(101)}`, 'q'],
      ['/api/v1/policy?q=biscuit&after=bm90LWEtY3Vyc29y', 'after'],
      ['/api/v1/policy?q=biscuit&includeDescendants=true', 'includeDescendants'],
      ['/api/v1/policy?q=biscuit&internalID=crm', 'q'],
      ['/api/v1/policy?q=biscuit&effectiveFrom=2026-13-01', 'effectiveFrom'],
      ['/api/v1/policy?q=ab%00', 'q'],
      ['/api/v1/policy?internalID=crm%00', 'internalID'],
      ['/api/v1/organization?q=a', 'q'],
      [`/api/v1/organization?q=org&parentId=${tree.org.A}`, 'parentId'],
      [`/api/v1/organization?organizationId=${tree.org.A}`, 'organizationId'],
    ];
    for (const [path, name] of cases) {
      const response = await request(service.url, 'GET', path, { token: alice });
      expect(response.status, path).toBe(400);
      expect(response.body.errors, path).toEqual([expect.objectContaining({ path: name })]);
    }
  });

  it("sets pg_trgm's thresholds for its own statement: a session's other defaults neither change it nor are changed by it", async () => {
    // As a pooled session through PgBouncer might carry another client's SETs.
    const settings = ['word_similarity_threshold', 'strict_word_similarity_threshold', 'similarity_threshold'];
    const database = new Database({
      url: service.databaseUrl,
      max: 1,
      options: settings.map((name) => `-c pg_trgm.${name}=0.99`).join(' '),
    });
    try {
      const principal = { sub: 'alice', org: tree.org.A };
      const search = (q: string) => searchPoliciesOf(database, principal, { q, filter: null, first: 20, after: SEARCH_START }, () => {});
      expect((await search('smyth')).items.map((item) => item.node.number)).toEqual([3001]);
      expect((await search('Jon Smyth')).items.map((item) => item.node.number)).toEqual([3001]);
      const [after] = await database.query<Record<string, string>>(
        `select ${settings.map((name) => `current_setting('pg_trgm.${name}') as "${name}"`).join(', ')}`,
      );
      expect(after).toEqual(Object.fromEntries(settings.map((name) => [name, '0.99'])));
    } finally {
      await database.close();
    }
  });
});
