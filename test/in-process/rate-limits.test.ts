import { beforeAll, describe, expect, it } from 'vitest';
import { policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { expectRateLimited, rateLimit } from '../support/rate-limit-fields.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * The per-caller budgets the operation core charges (contract section 12), in process: GraphQL
 * cost, and a GraphQL create's count, with their RateLimit fields and 429s. The budgets counted
 * before a route runs (requests, anonymous, in flight, a REST create): test/e2e/rate-limits.
 */
describe('rate limits charged by the operation core', () => {
  describe('GraphQL cost per sub', () => {
    const service = useInProcessService({ RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '1000' });
    let token: string;
    let organizationId: string;
    beforeAll(async () => {
      ({ token, organizationId } = await createRootOrganization(service));
    });

    it('spends each operation’s computed cost and refuses the one that would go over', async () => {
      // organization 1 + children(first: 10) x (1 + edges (1 + node (1 + id 1 + name 1))) = 51 points
      const query = `{ organization(id: "${organizationId}") { children(first: 10) { edges { node { id name } } } } }`;
      const costs: number[] = [];
      let response = await service.graphql(query, {}, token);
      while (response.status === 200) {
        costs.push(rateLimit(response)['graphql-cost'].r);
        response = await service.graphql(query, {}, token);
      }
      expect(costs.length).toBeGreaterThan(1);
      expect(costs[0]).toBe(1000 - 51);
      expect(costs[1]).toBe(1000 - 2 * 51);
      expect(costs).toHaveLength(Math.floor(1000 / 51));
      expectRateLimited(response, 'graphql-cost');
      expect(response.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(response.body.data).toBeUndefined();
      // REST reads are not charged GraphQL cost.
      expect((await service.request('GET', `/api/v1/organization/${organizationId}`, { token })).status).toBe(200);
    });
  });

  describe('creates per sub', () => {
    const service = useInProcessService({ RATE_LIMIT_CREATES_PER_MINUTE: '2' });
    let token: string;
    beforeAll(async () => {
      ({ token } = await createRootOrganization(service));
      // Spends the budget: two GraphQL creates (charged by the core, as REST's by its host).
      for (let i = 0; i < 2; i++) {
        const created = await service.graphql(
          'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { number } }',
          { i: policyBody() },
          token,
        );
        expect(created.status).toBe(200);
      }
    });

    it('does not keep a 429 for an Idempotency-Key: the retry runs once the budget allows', async () => {
      // A GraphQL create learns it is over the budget inside its idempotent run.
      const key = { 'idempotency-key': 'over-the-limit' };
      const body = { query: 'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { number } }', variables: { i: policyBody() } };
      const refused = await service.request('POST', '/graphql', { token, body, headers: key });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const kept = await service.sql("select 1 from idempotency_key where key = 'over-the-limit'");
      expect(kept).toEqual([]);
    });
  });
});
