import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, addMonthsClamped, todayUtc } from '../../src/values/calendar-date.js';
import { policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 23's filters (`status`, `coverageSlug`, `billingStatus`, `effectiveFrom`,
 * `effectiveTo`, AND-combined), as a property: for random combinations, every surface that takes
 * them (Organization.policies of one organization and of its subtree, Viewer.policies by
 * internalID, Viewer.searchPolicies, REST GET /api/v1/policy) pages to exactly the policies the
 * same filter keeps when the test applies it to the whole unfiltered list, in the surface's order.
 * The policies span every status, every billing status, every plan, and plan changes in effect
 * today and still to come (the filter is on the plan in effect today).
 */
const SLUGS = ['accident-only', 'accident-illness-basic', 'accident-illness-plus', 'accident-illness-unlimited'];
const STATUSES = ['pending', 'active', 'cancelled', 'expired'];
const BILLING = ['settled', 'due', 'past_due', 'credit'];
const PETS = ['Biscuit', 'Pickles'];
const KEYS = ['crm-a', 'crm-b'];

interface Listed {
  number: number;
  status: string;
  coverageSlug: string;
  billing: { status: string };
  effectiveDate: string;
  internalID: string | null;
  petName: string;
}
type Filter = Partial<Record<'status' | 'coverageSlug' | 'billingStatus' | 'effectiveFrom' | 'effectiveTo', string>>;

const LISTED = 'number status coverageSlug billing { status } effectiveDate internalID petName';
const FILTER_ARGS =
  'status: $status, coverageSlug: $coverageSlug, billingStatus: $billingStatus, effectiveFrom: $effectiveFrom, effectiveTo: $effectiveTo';
const FILTER_VARIABLES =
  '$status: PolicyStatus, $coverageSlug: String, $billingStatus: BillingStatus, $effectiveFrom: String, $effectiveTo: String';

function keeps(filter: Filter, policy: Listed): boolean {
  return (
    (filter.status === undefined || policy.status === filter.status) &&
    (filter.coverageSlug === undefined || policy.coverageSlug === filter.coverageSlug) &&
    (filter.billingStatus === undefined || policy.billing.status === filter.billingStatus) &&
    (filter.effectiveFrom === undefined || policy.effectiveDate >= filter.effectiveFrom) &&
    (filter.effectiveTo === undefined || policy.effectiveDate <= filter.effectiveTo)
  );
}

describe('policy filters, as a property of every list and search', () => {
  const service = useTestService();
  let token: string;
  let rootId: string;
  let childId: string;
  const today = todayUtc();
  /** Effective dates: expired, active and past due, active and due, pending. */
  const STARTS = [-400, -100, -5, 30].map((days) => addDays(today, days));

  beforeAll(async () => {
    ({ token, organizationId: rootId } = await createRootOrganization(service));
    const child = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: { legalName: 'Child', legalType: 'llc', taxId: '1', parentId: rootId },
    });
    childId = child.body.id;
    for (let i = 0; i < 24; i++) {
      const effectiveDate = STARTS[i % 4];
      const created = await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({
          organizationId: i % 3 === 0 ? childId : rootId,
          effectiveDate,
          expirationDate: i % 4 === 0 ? addDays(today, -35) : addDays(effectiveDate, 365),
          coverageSlug: SLUGS[i % 4 === 1 ? 3 - (Math.floor(i / 4) % 4) : Math.floor(i / 4) % 4],
          petName: PETS[Math.floor(i / 2) % 2],
          internalID: KEYS[i % 2],
        }),
      });
      expect(created.status, created.text).toBe(200);
      await settle(created.body, i);
    }
  });

  /** Moves policy i through cancellations, plan changes and payments, so every filter value occurs. */
  async function settle(policy: { number: number; effectiveDate: string; coverageSlug: string }, i: number) {
    const post = async (path: string, body: object) => {
      const response = await request(service.url, 'POST', `/api/v1/policy/${policy.number}/${path}`, { token, body });
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    const active = policy.effectiveDate < today && i % 4 !== 0;
    // Another plan from a billing date already past (in effect today), or from one to come (not yet).
    const another = SLUGS[(SLUGS.indexOf(policy.coverageSlug) + 1 + (i % 2)) % 4];
    if (active && i % 6 === 1) await post('changes', { effectiveDate: addMonthsClamped(policy.effectiveDate, 1), coverageSlug: another });
    if (active && i % 6 === 5) await post('changes', { effectiveDate: addMonthsClamped(policy.effectiveDate, 5), coverageSlug: another });
    if (active && i % 5 === 2 && i % 6 !== 5) await post('cancellation', { effectiveDate: today, reason: 'other' });
    const billed = (await request(service.url, 'GET', `/api/v1/policy/${policy.number}`, { token })).body.billing.billed as number;
    if (billed > 0 && i % 3 === 1) await post('payments', { amount: billed, reference: `pay-${i}` });
    if (billed > 0 && i % 7 === 3) await post('payments', { amount: billed + 500, reference: `over-${i}` });
  }

  async function pages(query: string, variables: Record<string, unknown>, at: (data: any) => any): Promise<number[]> {
    const seen: number[] = [];
    let after: string | null = null;
    for (let page = 0; page < 30; page++) {
      const response = await graphql(service.url, query, { ...variables, after }, token);
      expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
      const connection = at(response.body.data);
      seen.push(...connection.edges.map((edge: { node: { number: number } }) => edge.node.number));
      if (!connection.pageInfo.hasNextPage) return seen;
      after = connection.pageInfo.endCursor;
    }
    throw new Error('paging did not end');
  }

  const LIST = `query ($id: ID!, $subtree: Boolean, $after: String, ${FILTER_VARIABLES}) {
    organization(id: $id) { policies(first: 4, after: $after, includeDescendants: $subtree, ${FILTER_ARGS}) {
      edges { node { ${LISTED} } } pageInfo { hasNextPage endCursor } } } }`;
  const BY_KEY = `query ($key: String!, $after: String, ${FILTER_VARIABLES}) {
    viewer { policies(internalID: $key, first: 4, after: $after, ${FILTER_ARGS}) { edges { node { number } } pageInfo { hasNextPage endCursor } } } }`;
  const SEARCH = `query ($q: String!, $after: String, ${FILTER_VARIABLES}) {
    viewer { searchPolicies(q: $q, first: 4, after: $after, ${FILTER_ARGS}) { edges { node { number } } pageInfo { hasNextPage endCursor } } } }`;

  /** The whole subtree's policies, unfiltered, oldest first: what each filter is applied to. */
  let all: Listed[] = [];
  const inChild = new Set<number>();
  beforeAll(async () => {
    const response = await graphql(service.url, LIST.replace('first: 4', 'first: 100'), { id: rootId, subtree: true }, token);
    all = response.body.data.organization.policies.edges.map((edge: { node: Listed }) => edge.node);
    const child = await pages(LIST, { id: childId, subtree: false }, (data) => data.organization.policies);
    child.forEach((number) => inChild.add(number));
  });

  it('the policies cover every value of every filter', () => {
    expect(new Set(all.map((policy) => policy.status))).toEqual(new Set(STATUSES));
    expect(new Set(all.map((policy) => policy.billing.status))).toEqual(new Set(BILLING));
    expect(new Set(all.map((policy) => policy.coverageSlug))).toEqual(new Set(SLUGS));
  });

  const filters = fc.record(
    {
      status: fc.constantFrom(...STATUSES),
      coverageSlug: fc.constantFrom(...SLUGS),
      billingStatus: fc.constantFrom(...BILLING),
      effectiveFrom: fc.constantFrom(...[-401, -100, -4, 30, 31].map((days) => addDays(today, days))),
      effectiveTo: fc.constantFrom(...[-400, -101, -5, 29, 30].map((days) => addDays(today, days))),
    },
    { requiredKeys: [] },
  );

  it('every surface keeps exactly what the filter keeps in the whole list', async () => {
    await fc.assert(
      fc.asyncProperty(filters, async (filter: Filter) => {
        if (filter.effectiveFrom && filter.effectiveTo && filter.effectiveFrom > filter.effectiveTo) return;
        const kept = all.filter((policy) => keeps(filter, policy));
        const numbersOf = (policies: Listed[]) => policies.map((policy) => policy.number);
        expect(await pages(LIST, { id: rootId, subtree: true, ...filter }, (data) => data.organization.policies)).toEqual(numbersOf(kept));
        expect(await pages(LIST, { id: childId, subtree: false, ...filter }, (data) => data.organization.policies)).toEqual(
          numbersOf(kept.filter((policy) => inChild.has(policy.number))),
        );
        expect(await pages(BY_KEY, { key: 'crm-a', ...filter }, (data) => data.viewer.policies)).toEqual(
          numbersOf(kept.filter((policy) => policy.internalID === 'crm-a')),
        );
        // A search lists equal matches newest first.
        expect(await pages(SEARCH, { q: 'pickles', ...filter }, (data) => data.viewer.searchPolicies)).toEqual(
          numbersOf(kept.filter((policy) => policy.petName === 'Pickles')).reverse(),
        );
        const query = new URLSearchParams({ organizationId: rootId, includeDescendants: 'true', limit: '100', ...filter });
        const rest = await request(service.url, 'GET', `/api/v1/policy?${query}`, { token });
        expect(rest.status, rest.text).toBe(200);
        expect(rest.body.data.map((policy: Listed) => policy.number)).toEqual(numbersOf(kept));
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a date that is not one, an empty range and a plan not in the catalog, each a 400 on its name', async () => {
    const cases: Array<[Filter, string]> = [
      [{ effectiveFrom: '2026-02-30' }, 'effectiveFrom'],
      [{ effectiveTo: 'tomorrow' }, 'effectiveTo'],
      [{ effectiveFrom: '2026-03-01', effectiveTo: '2026-02-01' }, 'effectiveFrom'],
      [{ coverageSlug: 'gold-plated' }, 'coverageSlug'],
    ];
    for (const [filter, path] of cases) {
      const response = await graphql(service.url, LIST, { id: rootId, subtree: true, ...filter }, token);
      expect(response.body.errors[0].extensions, JSON.stringify(filter)).toEqual({
        code: 'BAD_USER_INPUT',
        errors: [expect.objectContaining({ path })],
      });
      const query = new URLSearchParams({ organizationId: rootId, ...filter });
      const rest = await request(service.url, 'GET', `/api/v1/policy?${query}`, { token });
      expect(rest.status, rest.text).toBe(400);
      expect(rest.body.errors, rest.text).toEqual([expect.objectContaining({ path })]);
    }
    const badStatus = await request(service.url, 'GET', `/api/v1/policy?organizationId=${rootId}&status=lapsed`, { token });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.errors).toEqual([expect.objectContaining({ path: 'status' })]);
  });
});
