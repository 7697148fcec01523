import { describe, expect, it } from 'vitest';
import { addDays, addMonthsClamped, todayUtc } from '../../src/values/calendar-date.js';
import { organizationWithSecrets, policyBody, SECRETS } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { accessPredicate } from '../../src/auth/access-rule.js';
import { POLICIES_BY_INTERNAL_ID } from '../../src/policies/policy-internal-id.reads.js';
import { useTestService } from '../support/test-service.js';

/** A node of PostgreSQL's JSON plan, with what EXPLAIN ANALYZE counted. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

/**
 * Contract section 18 over HTTP: what an integrator writes it can read back (events included,
 * key for key), and a policy is found by the integrator's own key through the access rule. Typos
 * in bodies, refused all at once with the field they were meant to be: test/in-process/creates.
 */
describe('integrators read back what they write (contract section 18)', () => {
  const service = useTestService();
  const today = todayUtc();
  // A policy event's data.object is the REST answer without its ledger, the other keys in their order (contract section 14).
  const withoutCharges = ({ charges: _charges, ...rest }: Record<string, unknown>) => rest;

  /** The event of this type whose object has this id (or, for an organization, that organization). */
  async function eventObject(token: string, type: string, id: string): Promise<unknown> {
    let after: string | null = null;
    do {
      const page: { body: { data: Array<{ data: { object: { id: string } } }>; nextCursor: string | null } } = await request(
        service.url,
        'GET',
        `/api/v1/events?type=${type}&limit=100${after ? `&after=${after}` : ''}`,
        { token },
      );
      const found = page.body.data.filter((event) => event.data.object.id === id).at(-1);
      if (found) return found.data.object;
      after = page.body.nextCursor;
    } while (after);
    throw new Error(`no ${type} event for ${id}`);
  }

  it("events' data.object has the REST answer's keys in the REST answer's order, for every event type", async () => {
    const alice = await service.token({ sub: 'reads-alice' });
    const body = {
      ...organizationWithSecrets(),
      email: 'a@example.com',
      address: { line1: '1 Main St', city: 'Springfield', suite: '4B', country: 'US' },
      owners: [{ firstname: 'Ada', lastname: 'L', taxId: SECRETS.ownerTaxId, ownership: 60, address: { city: 'Reno', dock: 4 } }],
    };
    const organization = await request(service.url, 'POST', '/api/v1/organization', { token: alice, body });
    expect(organization.status, organization.text).toBe(200);
    const token = await service.token({ sub: 'reads-alice', org: organization.body.id });
    // Byte for byte: same keys, same order, same values (the answer and the event are of one moment).
    expect(JSON.stringify(await eventObject(token, 'organization.created', organization.body.id))).toBe(JSON.stringify(organization.body));

    const changed = await request(service.url, 'PATCH', `/api/v1/organization/${organization.body.id}`, {
      token,
      body: { phone: '+1 413 555 0100', address: { city: 'Shelbyville' } },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(JSON.stringify(await eventObject(token, 'organization.updated', organization.body.id))).toBe(JSON.stringify(changed.body));

    const quote = await request(service.url, 'POST', '/api/v1/quote', {
      token,
      body: policyBody({ effectiveDate: today, expirationDate: addDays(today, 365) }),
    });
    expect(quote.status, quote.text).toBe(200);
    expect(JSON.stringify(await eventObject(token, 'quote.created', quote.body.id))).toBe(JSON.stringify(quote.body));

    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ internalID: 'ev-1', cvc: '123', effectiveDate: today, expirationDate: addDays(today, 365), petDOB: '2022-01-01' }),
    });
    expect(policy.status, policy.text).toBe(200);
    expect(JSON.stringify(await eventObject(token, 'policy.created', policy.body.id))).toBe(JSON.stringify(withoutCharges(policy.body)));
    const number = policy.body.number;
    const steps: Array<[string, string, object]> = [
      [
        'policy.changed',
        'changes',
        { effectiveDate: addMonthsClamped(today, 1), petName: 'Biscuit II', coverageSlug: 'accident-illness-plus' },
      ],
      ['policy.cancelled', 'cancellation', { effectiveDate: addDays(today, 60), reason: 'insured_request' }],
      ['policy.reinstated', 'reinstatement', {}],
    ];
    for (const [type, path, stepBody] of steps) {
      const answer = await request(service.url, 'POST', `/api/v1/policy/${number}/${path}`, { token, body: stepBody });
      expect(answer.status, answer.text).toBe(200);
      expect(JSON.stringify(await eventObject(token, type, policy.body.id)), type).toBe(JSON.stringify(withoutCharges(answer.body)));
    }

    // A renewal's event is the successor, as the renewal answers it.
    const renewable = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ effectiveDate: addDays(today, -335), expirationDate: addDays(today, 30) }),
    });
    const renewed = await request(service.url, 'POST', `/api/v1/policy/${renewable.body.number}/renewal`, { token, body: {} });
    expect(renewed.status, renewed.text).toBe(200);
    expect(JSON.stringify(await eventObject(token, 'policy.renewed', renewed.body.id))).toBe(JSON.stringify(withoutCharges(renewed.body)));
  });

  // 20,000 policies inserted with their triggers take 15-25 s on a busy machine.
  it('finds policies by internalID among those the caller may see, in REST and GraphQL, by an index', { timeout: 120_000 }, async () => {
    const owner = await service.token({ sub: 'reads-carol' });
    const root = (await request(service.url, 'POST', '/api/v1/organization', { token: owner, body: organizationWithSecrets() })).body.id;
    const child = (
      await request(service.url, 'POST', '/api/v1/organization', { token: owner, body: { ...organizationWithSecrets(), parentId: root } })
    ).body.id;
    const other = (
      await request(service.url, 'POST', '/api/v1/organization', {
        token: await service.token({ sub: 'reads-dave' }),
        body: organizationWithSecrets(),
      })
    ).body.id;
    const create = async (sub: string, org: string, internalID: string) =>
      (await request(service.url, 'POST', '/api/v1/policy', { token: await service.token({ sub, org }), body: policyBody({ internalID }) }))
        .body;
    const inRoot = await create('reads-carol', root, 'crm-42');
    const inChild = await create('reads-carol', child, 'crm-42');
    await create('reads-carol', child, 'crm-43');
    await create('reads-dave', other, 'crm-42');

    // The root's owner sees both of its tree's, oldest first; the other tree's is not listed.
    const found = await request(service.url, 'GET', '/api/v1/policy?internalID=crm-42', { token: owner });
    expect(found.status, found.text).toBe(200);
    expect(found.body.data.map((policy: { number: number }) => policy.number)).toEqual([inRoot.number, inChild.number]);
    expect(JSON.stringify(found.body.data[0])).toBe(JSON.stringify(inRoot));
    // Paged like every list.
    const first = await request(service.url, 'GET', '/api/v1/policy?internalID=crm-42&limit=1', { token: owner });
    expect(first.body).toMatchObject({ hasMore: true, data: [{ number: inRoot.number }] });
    const second = await request(service.url, 'GET', `/api/v1/policy?internalID=crm-42&limit=1&after=${first.body.nextCursor}`, {
      token: owner,
    });
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null, data: [{ number: inChild.number }] });
    // A token for the child sees only the child's; exact match only; nothing found is an empty page.
    const childToken = await service.token({ sub: 'someone', org: child });
    expect(
      (await request(service.url, 'GET', '/api/v1/policy?internalID=crm-42', { token: childToken })).body.data.map(
        (p: { number: number }) => p.number,
      ),
    ).toEqual([inChild.number]);
    expect((await request(service.url, 'GET', '/api/v1/policy?internalID=CRM-42', { token: owner })).body).toEqual({
      data: [],
      hasMore: false,
      nextCursor: null,
    });
    expect((await request(service.url, 'GET', '/api/v1/policy?internalID=crm-4', { token: owner })).body.data).toEqual([]);
    // Not combined with the organization's list parameters.
    const combined = await request(service.url, 'GET', `/api/v1/policy?internalID=crm-42&organizationId=${root}`, { token: owner });
    expect(combined.status).toBe(400);
    expect(combined.body.errors).toEqual([{ path: 'organizationId', message: expect.stringContaining('internalID') }]);

    const viewer = await graphql(
      service.url,
      '{ viewer { policies(internalID: "crm-42") { edges { node { id number internalID } } } } }',
      {},
      owner,
    );
    expect(viewer.body.data.viewer.policies.edges.map((edge: { node: { number: number } }) => edge.node)).toEqual([
      { id: inRoot.id, number: inRoot.number, internalID: 'crm-42' },
      { id: inChild.id, number: inChild.number, internalID: 'crm-42' },
    ]);

    // Issue 37, L4: looked up per entry point, the caller's own rows only. Another tenant holds
    // 20,000 policies with the same key: the plan reads the caller's entry points and its own two
    // policies, never the other tenant's (old: every policy with the key, each checked for access).
    await service.sql(
      `insert into policy (id, number, organization_id, owner_firstname, owner_lastname, pet_name, effective_date, expiration_date, coverage_slug, coverage, created_by_sub, internal_id)
       select gen_random_uuid(), next_policy_number(), $1, 'o', 'w', 'p', '2026-01-01', '2027-01-01', 'accident-only', '{}'::jsonb, 'bulk', 'crm-42' from generate_series(1, 20000) g`,
      [other],
    );
    await service.sql('analyze policy');
    await service.sql('analyze policy_ancestor');
    const access = accessPredicate('parent', { sub: 'reads-carol', org: null });
    let position = 0;
    const statement = POLICIES_BY_INTERNAL_ID(access.sql).replace(/\?/g, () => `$${++position}`);
    const [
      {
        'QUERY PLAN': [plan],
      },
    ] = await service.sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${statement}`, [
      null,
      'reads-carol',
      ...access.params,
      'crm-42',
      0,
      21,
      null,
    ]);
    const scans = planNodes(plan.Plan).filter((node) => node['Relation Name'] === 'policy' || node['Relation Name'] === 'policy_ancestor');
    expect(scans.map((node) => node['Index Name'])).toContain('policy_ancestor_internal_id_index');
    expect(scans.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    // Rows read from the policies' tables: the caller's two with the key, not the other tenant's 20,000.
    const rowsRead = scans.reduce(
      (sum, node) => sum + node['Actual Rows'] * node['Actual Loops'] + (node['Rows Removed by Filter'] ?? 0),
      0,
    );
    expect(rowsRead).toBeLessThanOrEqual(4);
    const again = await request(service.url, 'GET', '/api/v1/policy?internalID=crm-42', { token: owner });
    expect(again.body.data.map((policy: { number: number }) => policy.number)).toEqual([inRoot.number, inChild.number]);
  });
});
