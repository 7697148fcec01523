import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { OrganizationChildrenDocument, OrganizationParentDocument, OrganizationPoliciesDocument } from '../generated/graphql.js';
import { execute, graphql, request } from '../support/http.js';
import { insertOrganizations, insertPolicies } from '../support/rows.js';
import { useTestService } from '../support/test-service.js';

/**
 * Relay connections over HTTP:
 *
 *   R (alice) ── A (250 children, 250 policies) ── A's children
 *            └── B (sibling of A, with its own children and policies)
 */
describe('GraphQL connections', () => {
  // Big pages on purpose (50 policies with their charges cost 9,801): the cost limit and the
  // cost budget are tested in graphql-limits and rate-limits, not here.
  const service = useTestService({ GRAPHQL_MAX_COST: '20000', RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0' });
  let alice: string;
  const org: Record<string, string> = {};

  const createOrganization = async (token: string, body: Record<string, unknown>) => {
    const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody(body) });
    expect(response.status).toBe(200);
    return response.body.id as string;
  };

  /** Bulk rows through SQL (the trigger still fills their ancestry), for speed. */
  const addChildren = (parentId: string, count: number, prefix: string) =>
    insertOrganizations(service, Array.from({ length: count }, (_, i) => ({ parentId, name: `${prefix}${i + 1}` })));
  const addPolicies = (organizationId: string, count: number, from: number) =>
    insertPolicies(service, Array.from({ length: count }, (_, i) => ({ organizationId, number: from + i + 1, petName: `pet${i + 1}` })));

  beforeAll(async () => {
    alice = await service.token({ sub: 'alice' });
    org.R = await createOrganization(alice, { legalName: 'R' });
    org.A = await createOrganization(alice, { legalName: 'A', parentId: org.R });
    org.B = await createOrganization(alice, { legalName: 'B', parentId: org.R });
    await addChildren(org.A, 250, 'a-child-');
    await addPolicies(org.A, 250, 100_000);
    await addChildren(org.B, 5, 'b-child-');
    await addPolicies(org.B, 5, 200_000);
  });

  async function pageThrough(field: 'children' | 'policies', id: string, token: string, between?: () => Promise<void>) {
    const seen: Array<string | number> = [];
    const hasNext: boolean[] = [];
    let after: string | null = null;
    do {
      let connection: { edges: Array<{ cursor: string; node: string | number }>; pageInfo: { hasNextPage: boolean; endCursor?: string | null } };
      if (field === 'children') {
        const response = await execute(service.url, OrganizationChildrenDocument, { id, first: 100, after }, token);
        expect(response.body.errors).toBeUndefined();
        const page = response.body.data!.organization!.children;
        connection = { ...page, edges: page.edges.map((edge) => ({ cursor: edge.cursor, node: edge.node.id })) };
      } else {
        const response = await execute(service.url, OrganizationPoliciesDocument, { id, first: 100, after }, token);
        expect(response.body.errors).toBeUndefined();
        const page = response.body.data!.organization!.policies;
        connection = { ...page, edges: page.edges.map((edge) => ({ cursor: edge.cursor, node: edge.node.number })) };
      }
      seen.push(...connection.edges.map((edge) => edge.node));
      hasNext.push(connection.pageInfo.hasNextPage);
      if (connection.edges.length > 0) expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)!.cursor);
      after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor! : null;
      await between?.();
    } while (after);
    return { seen, hasNext };
  }

  it('pages through 250 children with first: 100, each exactly once, in creation order', async () => {
    const expected = (await service.sql<{ id: string }>('select id from organization where parent_id = $1 order by seq', [org.A])).map((r) => r.id);
    const { seen, hasNext } = await pageThrough('children', org.A, alice);
    expect(hasNext).toEqual([true, true, false]);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(250);
  });

  it('pages through 250 policies with first: 100, each exactly once, in creation order', async () => {
    const { seen, hasNext } = await pageThrough('policies', org.A, alice);
    expect(hasNext).toEqual([true, true, false]);
    expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => 100_001 + i));
  });

  it('neither skips nor repeats while new children are inserted between pages', async () => {
    const before = (await service.sql<{ id: string }>('select id from organization where parent_id = $1 order by seq', [org.A])).map((r) => r.id);
    let round = 0;
    const { seen } = await pageThrough('children', org.A, alice, async () => {
      round++;
      await addChildren(org.A, 3, `late-${round}-`);
    });
    expect(seen.slice(0, before.length)).toEqual(before);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('answers an exact last page with hasNextPage false, and an empty page after it', async () => {
    const exact = await createOrganization(alice, { legalName: 'Exact', parentId: org.R });
    await addChildren(exact, 100, 'e-');
    const first = await graphql(service.url, `{ organization(id: "${exact}") { children(first: 100) { pageInfo { hasNextPage endCursor } } } }`, {}, alice);
    const page = first.body.data.organization.children.pageInfo;
    expect(page.hasNextPage).toBe(false);
    const next = await graphql(
      service.url,
      `query ($after: String) { organization(id: "${exact}") { children(first: 100, after: $after) { edges { cursor } pageInfo { hasNextPage endCursor } } } }`,
      { after: page.endCursor },
      alice,
    );
    expect(next.body.data.organization.children).toEqual({ edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  it('refuses first outside 1..100 and cursors it did not make', async () => {
    for (const [args, path] of [
      ['first: 0', 'first'],
      ['first: 101', 'first'],
      ['first: 10, after: "bm9wZQ"', 'after'],
      ['first: 10, after: "!!!"', 'after'],
      [`first: 10, after: "${Buffer.from('policy:5').toString('base64url')}"`, 'after'],
    ]) {
      const response = await graphql(service.url, `{ organization(id: "${org.A}") { children(${args}) { edges { cursor } } } }`, {}, alice);
      expect(response.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: [expect.objectContaining({ path })] });
    }
  });

  it("never reaches a sibling's organization, children or policies through any path", async () => {
    const token = await service.token({ sub: 'someone', org: org.A });
    const reached = new Set<string>();
    const numbers = new Set<number>();
    const queue = [org.A];
    const crawl = `query ($id: ID!) {
      viewer { organization { id parent { id } } }
      organization(id: $id) {
        id
        parent { id children(first: 100) { edges { node { id } } } policies(first: 100) { edges { node { number } } } }
        children(first: 100) { edges { node { id parent { id } } } }
        policies(first: 100) { edges { node { number organization { id parent { id } } } } }
      }
    }`;
    while (queue.length > 0) {
      const id = queue.shift()!;
      if (reached.has(id)) continue;
      reached.add(id);
      const response = await graphql(service.url, crawl, { id }, token);
      const found = JSON.stringify(response.body);
      for (const match of found.matchAll(/"id":"([0-9a-f-]{36})"/g)) if (!reached.has(match[1])) queue.push(match[1]);
      for (const match of found.matchAll(/"number":(\d+)/g)) numbers.add(Number(match[1]));
    }
    const subtree = new Set((await service.sql<{ id: string }>('select id from organization where $1 = any(path)', [org.A])).map((r) => r.id));
    expect(reached.size).toBeGreaterThan(100);
    expect([...reached].filter((id) => !subtree.has(id))).toEqual([]);
    expect(reached.has(org.B)).toBe(false);
    expect(reached.has(org.R)).toBe(false);
    expect([...numbers].every((n) => n > 100_000 && n <= 100_250)).toBe(true);

    // Direct asks for the sibling's things are NOT_FOUND, and a cursor cannot jump across.
    const direct = await graphql(service.url, `{ organization(id: "${org.B}") { id } policy(number: 200001) { number } }`, {}, token);
    expect(direct.body.data).toEqual({ organization: null, policy: null });
    const bPage = await graphql(service.url, `{ organization(id: "${org.B}") { children(first: 1) { pageInfo { endCursor } } } }`, {}, alice);
    const cursor = bPage.body.data.organization.children.pageInfo.endCursor;
    const across = await graphql(service.url, `{ organization(id: "${org.A}") { children(first: 100, after: "${cursor}") { edges { node { name } } } } }`, {}, token);
    expect(JSON.stringify(across.body)).not.toContain('b-child-');
  });

  it('shows a parent to whoever may access it, and null to a child', async () => {
    const fromAbove = await execute(service.url, OrganizationParentDocument, { id: org.A }, alice);
    expect(fromAbove.body.data!.organization!.parent).toEqual({ id: org.R, name: 'R' });
    const child = await execute(service.url, OrganizationParentDocument, { id: org.A }, await service.token({ sub: 'x', org: org.A }));
    expect(child.body.data!.organization).toEqual({ parentId: org.R, parent: null });
    expect(child.body.errors).toBeUndefined();
  });

  describe('batched loading', () => {
    let statements: string[] = [];
    beforeAll(() => {
      service.orm.em.getConnection().getKnex().on('query', (query: { sql: string }) => statements.push(query.sql));
    });

    const count = async (query: string, token: string) => {
      statements = [];
      const response = await graphql(service.url, query, {}, token);
      expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
      return { statements: [...statements], data: response.body.data };
    };

    it('loads 50 policies with their organizations, coverage and charges in a fixed number of statements', async () => {
      const small = await createOrganization(alice, { legalName: 'Small' });
      const big = await createOrganization(alice, { legalName: 'Big' });
      const token = await service.token({ sub: 'alice' });
      for (let i = 0; i < 50; i++) {
        const body = policyBody({ organizationId: i < 5 ? small : big, effectiveDate: '2026-01-01', expirationDate: '2026-04-01' });
        if (i < 5) await request(service.url, 'POST', '/api/v1/policy', { token, body });
        await request(service.url, 'POST', '/api/v1/policy', { token, body: { ...body, organizationId: big } });
      }
      const query = (id: string) => `{ organization(id: "${id}") { policies(first: 50) { edges { node {
        number petName coverage { slug monthlyPremium } charges { amount dueDate } organization { id name parent { id } }
      } } } } }`;
      const few = await count(query(small), token);
      const many = await count(query(big), token);
      expect(few.data.organization.policies.edges).toHaveLength(5);
      expect(many.data.organization.policies.edges).toHaveLength(50);
      expect(many.data.organization.policies.edges.every((e: any) => e.node.organization.id === big && e.node.charges.length === 3)).toBe(true);
      // organization check, policies page, their organizations, their charges
      expect(many.statements.length).toBeLessThanOrEqual(4);
      expect(many.statements.length).toBe(few.statements.length);
    });

    it('loads a wide tree (children with their policies, owners and parents) in a fixed number of statements', async () => {
      const query = `{ organization(id: "${org.A}") { children(first: 50) { edges { node {
        name parent { id } owners { firstname } bankAccounts { accountLast4 }
        children(first: 5) { edges { node { id } } }
        policies(first: 5) { edges { node { number organization { id } } } }
      } } } } }`;
      const { statements: sent, data } = await count(query, alice);
      expect(data.organization.children.edges).toHaveLength(50);
      expect(sent.length).toBeLessThanOrEqual(7);
    });
  });
});
