import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { TRANSACTIONS } from '../support/policy-lifecycle.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 14, "Transactions": a policy's transactions, oldest first, on both surfaces.
 * Out of reach and bad parameters, through the operation core: test/in-process/policy-ledger.
 */
describe("a policy's transactions", () => {
  const service = useTestService();
  let token: string;
  let issuanceId: string;
  const later: Array<{ id: string; type: string; effectiveDate: string; changes: object }> = [];

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
    const created = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 300 }) });
    expect(created.status).toBe(200);
    issuanceId = created.body.charges[0].transactionId;
    // Nothing writes later transactions yet (cancellation and the rest come next): rows as they will.
    later.push(
      { id: randomUUID(), type: 'change', effectiveDate: '2026-03-01', changes: { petName: { from: 'Biscuit', to: 'Scone' } } },
      { id: randomUUID(), type: 'cancellation', effectiveDate: '2026-06-15', changes: {} },
    );
    for (const transaction of later) {
      await service.sql(
        `insert into policy_transaction (id, policy_id, type, effective_date, created_by_sub, changes)
         select $1, p.id, $2, $3, 'bob', $4 from policy p where p.number = 300`,
        [transaction.id, transaction.type, transaction.effectiveDate, JSON.stringify(transaction.changes)],
      );
    }
  });

  it('lists them over REST, oldest first, in the list shape of section 10', async () => {
    const response = await request(service.url, 'GET', '/api/v1/policy/300/transactions', { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        {
          id: issuanceId,
          type: 'issuance',
          effectiveDate: '2026-01-01',
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          createdBy: 'alice',
          changes: {},
        },
        ...later.map((transaction) => ({ ...transaction, createdAt: expect.any(String), createdBy: 'bob' })),
      ],
      hasMore: false,
      nextCursor: null,
    });
  });

  it('pages them with limit and after, neither skipping nor repeating', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 3; page++) {
      const query: string = after ? `?limit=1&after=${encodeURIComponent(after)}` : '?limit=1';
      const response = await request(service.url, 'GET', `/api/v1/policy/300/transactions${query}`, { token });
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(1);
      seen.push(response.body.data[0].id);
      expect(response.body.hasMore).toBe(page < 2);
      after = response.body.nextCursor;
    }
    expect(after).toBeNull();
    expect(seen).toEqual([issuanceId, ...later.map((transaction) => transaction.id)]);
  });

  it('answers the same through GraphQL Policy.transactions', async () => {
    const first = await graphql(service.url, TRANSACTIONS, { number: 300, first: 2 }, token);
    expect(first.body.errors).toBeUndefined();
    const connection = first.body.data.policy.transactions;
    expect(connection.edges.map((edge: { node: { type: string } }) => edge.node.type)).toEqual(['issuance', 'change']);
    expect(connection.edges[1].node).toEqual({ ...later[0], createdAt: expect.any(String), createdBy: 'bob' });
    expect(connection.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const rest = await graphql(service.url, TRANSACTIONS, { number: 300, first: 2, after: connection.pageInfo.endCursor }, token);
    expect(rest.body.data.policy.transactions.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([later[1].id]);
    expect(rest.body.data.policy.transactions.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('gives every policy of a list its own transactions (one statement for the page)', async () => {
    await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 301 }) });
    const response = await graphql(
      service.url,
      '{ viewer { organization { policies(first: 5) { edges { node { number transactions(first: 5) { edges { node { type } } } } } } } } }',
      {},
      token,
    );
    expect(response.body.errors).toBeUndefined();
    const counts = response.body.data.viewer.organization.policies.edges.map(
      (edge: { node: { number: number; transactions: { edges: unknown[] } } }) => [edge.node.number, edge.node.transactions.edges.length],
    );
    expect(counts).toEqual([
      [300, 3],
      [301, 1],
    ]);
  });
});
