import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { insertPolicies } from '../support/rows.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';
import { STATUS_FILTER_WALK } from '../../src/policies/policy.reads.js';

/** Today (UTC) plus `days`, as `YYYY-MM-DD`. */
function day(days: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** Policies whose dates put them in each status today: number -> [effectiveDate, expirationDate, status]. */
const POLICIES: Record<number, [string, string, string]> = {
  401: [day(10), day(375), 'pending'],
  402: [day(1), day(30), 'pending'],
  403: [day(0), day(365), 'active'],
  404: [day(-100), day(1), 'active'],
  405: [day(-400), day(-35), 'expired'],
  406: [day(-365), day(0), 'expired'],
};

/** Contract section 14, "Status": on every policy read, and as a filter of the lists. */
describe('policy status', () => {
  const service = useTestService();
  let token: string;
  let childId: string;

  beforeAll(async () => {
    let organizationId: string;
    ({ token, organizationId } = await createRootOrganization(service));
    const child = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationBody({ parentId: organizationId }),
    });
    childId = child.body.id;
    for (const [number, [effectiveDate, expirationDate]] of Object.entries(POLICIES)) {
      // The even ones in the child organization, so that includeDescendants has something to add.
      const body = policyBody({
        number: Number(number),
        effectiveDate,
        expirationDate,
        ...(Number(number) % 2 === 0 ? { organizationId: childId } : {}),
      });
      const created = await request(service.url, 'POST', '/api/v1/policy', { token, body });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body).toMatchObject({ status: POLICIES[Number(number)][2], cancellation: null, renewalOf: null, renewedBy: null });
    }
  });

  it('shows status, cancellation, renewalOf and renewedBy on the REST read and the GraphQL policy', async () => {
    for (const [number, [, , status]] of Object.entries(POLICIES)) {
      const read = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
      expect(read.body, number).toMatchObject({ status, cancellation: null, renewalOf: null, renewedBy: null });
      const viaGraphql = await graphql(
        service.url,
        'query ($n: SafeInt!) { policy(number: $n) { status cancellation { effectiveDate reason method credited fee createdAt } renewalOf renewedBy } }',
        { n: Number(number) },
        token,
      );
      expect(viaGraphql.body.data.policy, number).toEqual({ status, cancellation: null, renewalOf: null, renewedBy: null });
    }
  });

  it('filters the REST list by status=, own policies and with includeDescendants, each item showing it', async () => {
    const list = async (query: string) => {
      const response = await request(service.url, 'GET', `/api/v1/policy?includeDescendants=true${query}`, { token });
      expect(response.status, query).toBe(200);
      return response.body.data.map((item: { number: number; status: string }) => [item.number, item.status]);
    };
    expect(await list('')).toEqual(Object.entries(POLICIES).map(([number, [, , status]]) => [Number(number), status]));
    expect(await list('&status=pending')).toEqual([
      [401, 'pending'],
      [402, 'pending'],
    ]);
    expect(await list('&status=active')).toEqual([
      [403, 'active'],
      [404, 'active'],
    ]);
    expect(await list('&status=expired')).toEqual([
      [405, 'expired'],
      [406, 'expired'],
    ]);
    expect(await list('&status=cancelled')).toEqual([]);
    const own = await request(service.url, 'GET', `/api/v1/policy?organizationId=${childId}&status=active`, { token });
    expect(own.body.data.map((item: { number: number }) => item.number)).toEqual([404]);
    // Pages of a filtered list neither skip nor repeat.
    const first = await request(service.url, 'GET', '/api/v1/policy?includeDescendants=true&status=expired&limit=1', { token });
    expect(first.body).toMatchObject({ hasMore: true, data: [{ number: 405 }] });
    const next = await request(
      service.url,
      'GET',
      `/api/v1/policy?includeDescendants=true&status=expired&limit=1&after=${first.body.nextCursor}`,
      { token },
    );
    expect(next.body).toMatchObject({ hasMore: false, nextCursor: null, data: [{ number: 406 }] });
  });

  it('filters the GraphQL list by status:', async () => {
    const response = await graphql(
      service.url,
      `{ viewer { organization {
          own: policies(first: 10, status: pending) { edges { node { number status } } }
          all: policies(first: 10, status: expired, includeDescendants: true) { edges { node { number status } } }
      } } }`,
      {},
      token,
    );
    expect(response.body.errors).toBeUndefined();
    const numbers = (connection: { edges: Array<{ node: { number: number; status: string } }> }) =>
      connection.edges.map((edge) => [edge.node.number, edge.node.status]);
    expect(numbers(response.body.data.viewer.organization.own)).toEqual([[401, 'pending']]);
    expect(numbers(response.body.data.viewer.organization.all)).toEqual([
      [405, 'expired'],
      [406, 'expired'],
    ]);
  });

  it('answers 400 for a status that is not one', async () => {
    for (const query of ['status=open', 'status=Active', 'status=active&status=expired']) {
      const response = await request(service.url, 'GET', `/api/v1/policy?${query}`, { token });
      expect(response.status, query).toBe(400);
      expect(response.body.errors[0].path).toBe('status');
    }
    const viaGraphql = await graphql(
      service.url,
      '{ viewer { organization { policies(status: open) { edges { node { number } } } } } }',
      {},
      token,
    );
    expect(viaGraphql.status).toBe(400);
  });

  it(`walks at most ${STATUS_FILTER_WALK} policies for a page of a rare status: a short page with hasMore and a cursor past it, and the pages together find every match once`, async () => {
    const { token: ownToken, organizationId } = await createRootOrganization(service);
    // STATUS_FILTER_WALK + 200 expired policies, then one active policy that is cancelled today.
    await insertPolicies(
      service,
      Array.from({ length: STATUS_FILTER_WALK + 200 }, (_, i) => ({
        organizationId,
        number: 900_000 + i,
        effectiveDate: day(-400),
        expirationDate: day(-35),
      })),
    );
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token: ownToken,
      body: policyBody({ number: 901_500, effectiveDate: day(-10), expirationDate: day(355) }),
    });
    expect(created.status, created.text).toBe(200);
    const cancelled = await request(service.url, 'POST', '/api/v1/policy/901500/cancellation', {
      token: ownToken,
      body: { effectiveDate: day(0), reason: 'other' },
    });
    expect(cancelled.status, cancelled.text).toBe(200);

    for (const scope of [`organizationId=${organizationId}`, 'includeDescendants=true']) {
      const first = await request(service.url, 'GET', `/api/v1/policy?${scope}&status=cancelled&limit=100`, { token: ownToken });
      expect(first.body, scope).toMatchObject({ data: [], hasMore: true });
      expect(first.body.nextCursor, scope).toEqual(expect.any(String));
      const second = await request(
        service.url,
        'GET',
        `/api/v1/policy?${scope}&status=cancelled&limit=100&after=${first.body.nextCursor}`,
        { token: ownToken },
      );
      expect(second.body, scope).toMatchObject({ hasMore: false, nextCursor: null, data: [{ number: 901_500, status: 'cancelled' }] });
      // A common status still fills its pages: the walk stops at the page, not at the cap.
      const expired = await request(service.url, 'GET', `/api/v1/policy?${scope}&status=expired&limit=100`, { token: ownToken });
      expect(expired.body.data, scope).toHaveLength(100);
      expect(expired.body.hasMore, scope).toBe(true);
    }

    // GraphQL says the same: no edges, hasNextPage, and an endCursor that continues past them.
    const query = `query ($after: String) { viewer { organization { policies(first: 5, status: cancelled, after: $after) {
      edges { node { number } } pageInfo { hasNextPage endCursor } } } } }`;
    const page = await graphql(service.url, query, {}, ownToken);
    const connection = page.body.data.viewer.organization.policies;
    expect(connection).toMatchObject({ edges: [], pageInfo: { hasNextPage: true, endCursor: expect.any(String) } });
    const next = await graphql(service.url, query, { after: connection.pageInfo.endCursor }, ownToken);
    expect(next.body.data.viewer.organization.policies).toMatchObject({
      edges: [{ node: { number: 901_500 } }],
      pageInfo: { hasNextPage: false },
    });
  });
});
