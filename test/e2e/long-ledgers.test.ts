import { beforeAll, describe, expect, it } from 'vitest';
import { graphql, request } from '../support/http.js';
import { LEDGER_LENGTH, organizationWithLongLedgers, POLICIES } from '../support/long-ledgers.js';
import { useTestService } from '../support/test-service.js';

/**
 * Issue 37, M2 (contract section 14, "Bounded ledgers"): reads pay for the ledgers they return at
 * their real length, REST documents and mutation answers too, and a list page stops early with
 * `hasMore` and a cursor rather than pass the limit or the response cap. The review's case: one
 * organization with 25 policies of 744 charges each, whose REST page of 100 was 5.07 MB.
 */
describe('reads pay for the ledgers they return (issue 37, M2)', () => {
  const service = useTestService();
  let token: string;
  let organization: { id: string; numbers: number[] };

  beforeAll(async () => {
    token = await service.token({ sub: 'long-ledgers' });
    organization = await organizationWithLongLedgers(service, token, POLICIES, LEDGER_LENGTH);
  });

  it('a REST page of policies stops early with hasMore and a cursor that continues, each ledger whole', async () => {
    const seen: number[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const page = await request(
        service.url,
        'GET',
        `/api/v1/policy?organizationId=${organization.id}&limit=100${after ? `&after=${after}` : ''}`,
        { token },
      );
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      pages++;
      const { data, hasMore, nextCursor } = page.body as {
        data: Array<{ number: number; charges: unknown[] }>;
        hasMore: boolean;
        nextCursor: string | null;
      };
      // Counted at 744 charges of 11 points each, a policy is over the 5,000 a page may cost: one per page.
      expect(data.length).toBeGreaterThanOrEqual(1);
      expect(Buffer.byteLength(page.text)).toBeLessThan(1024 * 1024);
      for (const policy of data) expect(policy.charges).toHaveLength(LEDGER_LENGTH);
      seen.push(...data.map((policy) => policy.number));
      expect(hasMore).toBe(seen.length < POLICIES);
      expect(nextCursor === null).toBe(!hasMore);
      after = nextCursor;
    } while (after !== null && pages <= POLICIES);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(organization.numbers);
  });

  it("a REST read of one policy answers its whole ledger: a document's own resource is never refused", async () => {
    const read = await request(service.url, 'GET', `/api/v1/policy/${organization.numbers[0]}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.charges).toHaveLength(LEDGER_LENGTH);
  });

  it('a GraphQL connection stops early within the query limit, with hasNextPage and an endCursor that continues', async () => {
    const query = `query Page($id: ID!, $after: String) { organization(id: $id) {
      policies(first: 5, after: $after) { edges { node { number charges { id amount } } } pageInfo { hasNextPage endCursor } } } }`;
    const first = await graphql(service.url, query, { id: organization.id }, token);
    expect(first.body.errors).toBeUndefined();
    const { edges, pageInfo } = first.body.data.organization.policies;
    // 5 policies counted at 61 charges of 3 points; each of these costs 683 × 3 more: the page holds what fits.
    expect(edges.length).toBeLessThan(5);
    expect(edges[0].node.charges).toHaveLength(LEDGER_LENGTH);
    expect(pageInfo.hasNextPage).toBe(true);
    const next = await graphql(service.url, query, { id: organization.id, after: pageInfo.endCursor }, token);
    expect(next.body.data.organization.policies.edges[0].node.number).toBe(organization.numbers[edges.length]);
  });

  it("a mutation's answer is metered: its write is answered, its lists stop early", async () => {
    const mutation = `mutation Rename($id: ID!) { updateOrganization(id: $id, input: { name: "Renamed" }) {
      name policies(first: 10) { edges { node { number charges { id type periodStart periodEnd dueDate amount } } } pageInfo { hasNextPage endCursor } } } }`;
    const answer = await graphql(service.url, mutation, { id: organization.id }, token);
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    const renamed = answer.body.data.updateOrganization;
    expect(renamed.name).toBe('Renamed');
    // Unmetered, this answer held 10 policies of 744 charges (1.44 MB in the review).
    expect(renamed.policies.edges.length).toBeLessThan(10);
    expect(renamed.policies.pageInfo.hasNextPage).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(answer.body))).toBeLessThan(512 * 1024);
  });

  it('a page of events carrying whole ledgers stops early instead of passing the response cap (400 before)', async () => {
    // Events as they were written before they stayed small: each carries a policy with its 744 charges (~200 KB).
    await service.sql(
      `insert into event (id, type, organization_id, data)
       select gen_random_uuid(), 'policy.changed', p.organization_id,
         json_build_object('object', json_build_object('id', p.id, 'number', p.number,
           'charges', (select json_agg(c order by c.sequence) from charge c where c.policy_id = p.id)))
       from policy p where p.organization_id = $1 order by p.seq`,
      [organization.id],
    );
    const seen = new Set<string>();
    let after: string | null = null;
    let pages = 0;
    do {
      const page = await request(
        service.url,
        'GET',
        `/api/v1/events?organizationId=${organization.id}&type=policy.changed&limit=100${after ? `&after=${after}` : ''}`,
        { token },
      );
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      pages++;
      expect(Buffer.byteLength(page.text)).toBeLessThan(5 * 1024 * 1024);
      for (const event of page.body.data as Array<{ id: string }>) seen.add(event.id);
      after = page.body.nextCursor;
    } while (after !== null && pages <= POLICIES);
    expect(pages).toBeGreaterThan(1);
    expect(seen.size).toBe(POLICIES);
  });
});
