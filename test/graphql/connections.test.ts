import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import {
  CreateOrganizationDocument,
  CreatePolicyDocument,
  OrganizationChildrenDocument,
  OrganizationParentDocument,
  OrganizationPoliciesDocument,
  type CreateOrganizationInput,
} from '../generated/graphql.js';
import { useInProcessSchema, type Claims } from '../support/in-process.js';
import { insertOrganizations, insertPolicies } from '../support/rows.js';

/**
 * Relay connections, run in process:
 *
 *   R (alice) ── A (250 children, 250 policies) ── A's children
 *            └── B (sibling of A, with its own children and policies)
 */
describe('GraphQL connections', () => {
  // Big pages on purpose (50 policies with their charges cost 9,801): the cost limit and the
  // cost budget are Apollo's and the route's, tested over HTTP in graphql-limits and rate-limits;
  // this level checks neither.
  const api = useInProcessSchema();
  const alice = { sub: 'alice' };
  const org: Record<string, string> = {};

  const createOrganization = async (principal: Claims, body: Record<string, unknown>) => {
    const response = await api.run(CreateOrganizationDocument, {
      principal,
      variables: { input: organizationBody(body) as CreateOrganizationInput },
    });
    expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
    return response.data!.createOrganization.id;
  };

  /** Bulk rows through SQL (the trigger still fills their ancestry), for speed. */
  const addChildren = (parentId: string, count: number, prefix: string) =>
    insertOrganizations(
      api,
      Array.from({ length: count }, (_, i) => ({ parentId, name: `${prefix}${i + 1}` })),
    );
  const addPolicies = (organizationId: string, count: number, from: number) =>
    insertPolicies(
      api,
      Array.from({ length: count }, (_, i) => ({ organizationId, number: from + i + 1, petName: `pet${i + 1}` })),
    );

  beforeAll(async () => {
    org.R = await createOrganization(alice, { legalName: 'R' });
    org.A = await createOrganization(alice, { legalName: 'A', parentId: org.R });
    org.B = await createOrganization(alice, { legalName: 'B', parentId: org.R });
    await addChildren(org.A, 250, 'a-child-');
    await addPolicies(org.A, 250, 100_000);
    await addChildren(org.B, 5, 'b-child-');
    await addPolicies(org.B, 5, 200_000);
  });

  async function pageThrough(field: 'children' | 'policies', id: string, principal: Claims, between?: () => Promise<void>) {
    const seen: Array<string | number> = [];
    const hasNext: boolean[] = [];
    let after: string | null = null;
    do {
      let connection: {
        edges: Array<{ cursor: string; node: string | number }>;
        pageInfo: { hasNextPage: boolean; endCursor?: string | null };
      };
      if (field === 'children') {
        const response = await api.run(OrganizationChildrenDocument, { principal, variables: { id, first: 100, after } });
        expect(response.errors).toBeUndefined();
        const page = response.data!.organization!.children;
        connection = { ...page, edges: page.edges.map((edge) => ({ cursor: edge.cursor, node: edge.node.id })) };
      } else {
        const response = await api.run(OrganizationPoliciesDocument, { principal, variables: { id, first: 100, after } });
        expect(response.errors).toBeUndefined();
        const page = response.data!.organization!.policies;
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
    const expected = (await api.sql<{ id: string }>('select id from organization where parent_id = $1 order by seq', [org.A])).map(
      (r) => r.id,
    );
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
    const before = (await api.sql<{ id: string }>('select id from organization where parent_id = $1 order by seq', [org.A])).map(
      (r) => r.id,
    );
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
    const first = await api.run(`{ organization(id: "${exact}") { children(first: 100) { pageInfo { hasNextPage endCursor } } } }`, {
      principal: alice,
    });
    const page = first.data.organization.children.pageInfo;
    expect(page.hasNextPage).toBe(false);
    const next = await api.run(
      `query ($after: String) { organization(id: "${exact}") { children(first: 100, after: $after) { edges { cursor } pageInfo { hasNextPage endCursor } } } }`,
      { principal: alice, variables: { after: page.endCursor } },
    );
    expect(next.data.organization.children).toEqual({ edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  it('refuses first outside 1..100 and cursors it did not make', async () => {
    for (const [args, path] of [
      ['first: 0', 'first'],
      ['first: 101', 'first'],
      ['first: 10, after: "bm9wZQ"', 'after'],
      ['first: 10, after: "!!!"', 'after'],
      [`first: 10, after: "${Buffer.from('policy:5').toString('base64url')}"`, 'after'],
    ]) {
      const response = await api.run(`{ organization(id: "${org.A}") { children(${args}) { edges { cursor } } } }`, { principal: alice });
      expect(response.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: [expect.objectContaining({ path })] });
    }
  });

  it("never reaches a sibling's organization, children or policies through any path", async () => {
    const principal = { sub: 'someone', org: org.A };
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
      const response = await api.run(crawl, { principal, variables: { id } });
      const found = JSON.stringify(response);
      for (const match of found.matchAll(/"id":"([0-9a-f-]{36})"/g)) if (!reached.has(match[1])) queue.push(match[1]);
      for (const match of found.matchAll(/"number":(\d+)/g)) numbers.add(Number(match[1]));
    }
    const subtree = new Set((await api.sql<{ id: string }>('select id from organization where $1 = any(path)', [org.A])).map((r) => r.id));
    expect(reached.size).toBeGreaterThan(100);
    expect([...reached].filter((id) => !subtree.has(id))).toEqual([]);
    expect(reached.has(org.B)).toBe(false);
    expect(reached.has(org.R)).toBe(false);
    expect([...numbers].every((n) => n > 100_000 && n <= 100_250)).toBe(true);

    // Direct asks for the sibling's things are NOT_FOUND, and a cursor cannot jump across.
    const direct = await api.run(`{ organization(id: "${org.B}") { id } policy(number: 200001) { number } }`, { principal });
    expect(direct.data).toEqual({ organization: null, policy: null });
    const bPage = await api.run(`{ organization(id: "${org.B}") { children(first: 1) { pageInfo { endCursor } } } }`, { principal: alice });
    const cursor = bPage.data.organization.children.pageInfo.endCursor;
    const across = await api.run(
      `{ organization(id: "${org.A}") { children(first: 100, after: "${cursor}") { edges { node { name } } } } }`,
      { principal },
    );
    expect(JSON.stringify(across)).not.toContain('b-child-');
  });

  it('shows a parent to whoever may access it, and null to a child', async () => {
    const fromAbove = await api.run(OrganizationParentDocument, { principal: alice, variables: { id: org.A } });
    expect(fromAbove.data!.organization!.parent).toEqual({ id: org.R, name: 'R' });
    const child = await api.run(OrganizationParentDocument, { principal: { sub: 'x', org: org.A }, variables: { id: org.A } });
    expect(child.data!.organization).toEqual({ parentId: org.R, parent: null });
    expect(child.errors).toBeUndefined();
  });

  describe('includeDescendants', () => {
    const subtree = async (id: string, principal: Claims, first = 100) => {
      const numbers: number[] = [];
      let after: string | null = null;
      do {
        const response: { data?: any; errors?: unknown } = await api.run(
          `query ($id: ID!, $first: Int!, $after: String) { organization(id: $id) {
            policies(first: $first, after: $after, includeDescendants: true) { edges { node { number organization { id } } } pageInfo { hasNextPage endCursor } }
          } }`,
          { principal, variables: { id, first, after } },
        );
        expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
        const page: any = response.data.organization.policies;
        numbers.push(...page.edges.map((edge: any) => edge.node.number));
        after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      } while (after);
      return numbers;
    };
    const policyNumbersUnder = async (id: string) =>
      (
        await api.sql<{ number: string }>(
          `select p.number from policy p join organization o on o.id = p.organization_id where $1::uuid = any(o.path) order by p.seq`,
          [id],
        )
      ).map((row) => Number(row.number));

    it('pages the policies of the organization and every descendant, in creation order, each once', async () => {
      const [grandchild] = await addChildren((await addChildren(org.B, 1, 'b-deep-'))[0], 1, 'b-deeper-');
      await addPolicies(grandchild, 7, 300_000);
      await addPolicies(org.R, 3, 310_000);
      for (const id of [org.R, org.A, org.B]) {
        const expected = await policyNumbersUnder(id);
        expect(await subtree(id, alice, 100)).toEqual(expected);
        expect(await subtree(id, alice, 7)).toEqual(expected);
      }
      expect(await subtree(org.B, alice)).toEqual([
        ...Array.from({ length: 5 }, (_, i) => 200_001 + i),
        ...Array.from({ length: 7 }, (_, i) => 300_001 + i),
      ]);
    });

    it("stays inside what the caller may access: B's token sees B's subtree, never R's other policies", async () => {
      const bToken = { sub: 'someone', org: org.B };
      const numbers = await subtree(org.B, bToken);
      expect(numbers).toEqual(await policyNumbersUnder(org.B));
      const response = await api.run(
        `{ organization(id: "${org.R}") { policies(includeDescendants: true) { edges { node { number } } } } }`,
        { principal: bToken },
      );
      expect(response.data?.organization).toBeNull();
      expect(response.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    });
  });

  describe('batched loading', () => {
    let statements: string[] = [];
    beforeAll(() => {
      api.database.onStatement(({ text }) => statements.push(text));
    });

    const count = async (query: string, principal: Claims) => {
      statements = [];
      const response = await api.run(query, { principal });
      expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
      return { statements: [...statements], data: response.data };
    };

    it('loads 50 policies with their organizations, coverage and charges in a fixed number of statements', async () => {
      const small = await createOrganization(alice, { legalName: 'Small' });
      const big = await createOrganization(alice, { legalName: 'Big' });
      const principal = { sub: 'alice' };
      const createPolicy = (input: Record<string, unknown>) => api.run(CreatePolicyDocument, { principal, variables: { input } });
      for (let i = 0; i < 50; i++) {
        const body = policyBody({ organizationId: i < 5 ? small : big, effectiveDate: '2026-01-01', expirationDate: '2026-04-01' });
        if (i < 5) await createPolicy(body);
        await createPolicy({ ...body, organizationId: big });
      }
      const query = (id: string) => `{ organization(id: "${id}") { policies(first: 50) { edges { node {
        number petName coverage { slug monthlyPremium } charges { amount dueDate } organization { id name parent { id } }
      } } } } }`;
      const few = await count(query(small), principal);
      const many = await count(query(big), principal);
      expect(few.data.organization.policies.edges).toHaveLength(5);
      expect(many.data.organization.policies.edges).toHaveLength(50);
      expect(many.data.organization.policies.edges.every((e: any) => e.node.organization.id === big && e.node.charges.length === 3)).toBe(
        true,
      );
      // organization check, policies page, their organizations, their charges
      expect(many.statements.length).toBeLessThanOrEqual(4);
      expect(many.statements.length).toBe(few.statements.length);
    });

    it('loads a wide tree (children with their policies, owners and parents) in a fixed number of statements', async () => {
      const query = `{ organization(id: "${org.A}") { children(first: 50) { edges { node {
        name parent { id } owners { firstname } bankAccounts { accountLast4 }
        children(first: 5) { edges { node { id } } }
        policies(first: 5) { edges { node { number organization { id } } } }
        subtree: policies(first: 5, includeDescendants: true) { edges { node { number } } }
      } } } } }`;
      const { statements: sent, data } = await count(query, alice);
      expect(data.organization.children.edges).toHaveLength(50);
      expect(sent.length).toBeLessThanOrEqual(8);
    });
  });
});
