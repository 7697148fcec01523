import { beforeAll, describe, expect, it } from 'vitest';
import { policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 23: "a cursor encodes the whole sort order: paging while others write repeats
 * and skips nothing that existed when the first page was read". A list (oldest first, by `seq`)
 * and a search (best match first, then newest: rank, then `seq`) are paged while policies that
 * match are created between the pages, ranking above, equal to and below what is being paged.
 */
describe('paging while others write', () => {
  const service = useTestService();
  let token: string;
  let organizationId: string;
  let created = 0;

  const create = async (petName: string): Promise<number> => {
    const response = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId, petName, ownerFirstname: 'Paula', ownerLastname: `Writer${created++}` }),
    });
    expect(response.status, response.text).toBe(200);
    return response.body.number;
  };

  /** Pages through a connection, running `between` after each page; the numbers seen, in order. */
  async function pageThrough(query: string, variables: Record<string, unknown>, between: () => Promise<void>): Promise<number[]> {
    const seen: number[] = [];
    let after: string | null = null;
    for (let page = 0; page < 50; page++) {
      const response = await graphql(service.url, query, { ...variables, after }, token);
      expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
      const connection = response.body.data.organization?.policies ?? response.body.data.viewer.searchPolicies;
      seen.push(...connection.edges.map((edge: { node: { number: number } }) => edge.node.number));
      if (!connection.pageInfo.hasNextPage) return seen;
      after = connection.pageInfo.endCursor;
      await between();
    }
    throw new Error('paging did not end');
  }

  const existing: number[] = [];
  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
    // Two texts that rank differently for "marmalade": the name itself, and one letter off.
    for (let i = 0; i < 24; i++) existing.push(await create(i % 3 === 0 ? 'Marmalady' : 'Marmalade'));
  });

  it('a list: every policy that existed at the first page once, in creation order', async () => {
    const list = `query ($id: ID!, $after: String) { organization(id: $id) {
      policies(first: 5, after: $after, includeDescendants: true) { edges { node { number } } pageInfo { hasNextPage endCursor } } } }`;
    const seen = await pageThrough(list, { id: organizationId }, async () => {
      await create('Marmalade');
      await create('Zucchini');
    });
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((number) => existing.includes(number))).toEqual(existing);
    // Created since, in creation order after them: a list's new rows come last.
    expect(seen.slice(0, existing.length)).toEqual(existing);
  });

  it('a search: every match that existed at the first page once, best first then newest, whatever ranks above or beside it meanwhile', async () => {
    const search = `query ($q: String!, $after: String) { viewer {
      searchPolicies(q: $q, first: 4, after: $after) { edges { node { number petName } } pageInfo { hasNextPage endCursor } } } }`;
    // What existed when paging started, in the search's order (read without writes in between).
    const before = await pageThrough(search, { q: 'marmalade' }, async () => undefined);
    const seen = await pageThrough(search, { q: 'marmalade' }, async () => {
      await create('Marmalade'); // as good as the page being read, and newer: before the cursor
      await create('Marmalady'); // worse, and newer: among the ones still to come
      await create('Marmalades'); // a third text, between the two
    });
    expect(new Set(seen).size).toBe(seen.length);
    // Each one that existed, once, in the order it had: none missing, none twice.
    expect(seen.filter((number) => before.includes(number))).toEqual(before);
    // The names' order: the exact name's policies newest first, then the near ones'.
    const initial = before.filter((number) => existing.includes(number));
    expect(initial).toEqual([...existing.filter((_, i) => i % 3 !== 0).reverse(), ...existing.filter((_, i) => i % 3 === 0).reverse()]);
    // Every other one seen was created since.
    expect(seen.filter((number) => !before.includes(number)).every((number) => number > Math.max(...before))).toBe(true);
  });
});
