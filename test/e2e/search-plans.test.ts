import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import { Database, type SentStatement } from '../../src/database/database.js';
import { SEARCH_START } from '../../src/graphql/search-position.js';
import { Deadline } from '../../src/limits/deadline.js';
import { searchOrganizations } from '../../src/organizations/organization-search.js';
import { policyFilterKey, type PolicyFilter } from '../../src/policies/policy-filters.js';
import { policiesByInternalId } from '../../src/policies/policy-internal-id.reads.js';
import { searchPolicies } from '../../src/policies/policy-search.js';
import { policyPages, subtreePolicyPages } from '../../src/policies/policy.reads.js';
import { PolicyStatus } from '../../src/policies/policy-status.js';
import { FIRST_NAMES, LAST_NAMES, LEGAL_NAME_WORDS, PET_NAMES } from '../../scripts/seed-names.js';
import { insertOrganizations } from '../support/rows.js';
import { useTestService } from '../support/test-service.js';

/**
 * Contract section 23, "Bounded": every search and every filtered page is answered from
 * indexes. Each statement the service sends (recorded as it sends it) is planned by PostgreSQL
 * as a custom plan and as a generic one (the service prepares statements by name, so after five
 * runs PostgreSQL may keep a generic plan), on two trees of 6,000 policies and 2,000 organizations
 * each among 40 other tenants' trees of 100 organizations, and no plan reads a table of policies or organizations by a sequential scan.
 */
const TABLES = ['policy', 'organization', 'policy_ancestor', 'policy_search_posting', 'policy_search_term', 'policy_state'];
const MODES = ['force_custom_plan', 'force_generic_plan'];
const FILTERS: Array<Partial<PolicyFilter>> = [
  { status: PolicyStatus.active },
  { coverageSlug: 'accident-illness-plus' },
  { billingStatus: 'past_due' },
  { effectiveFrom: '2026-03-01' },
  { effectiveTo: '2026-06-30' },
  {
    status: PolicyStatus.pending,
    coverageSlug: 'accident-only',
    billingStatus: 'settled',
    effectiveFrom: '2026-01-01',
    effectiveTo: '2026-12-31',
  },
];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}
const sequentialScans = (node: PlanNode): string[] => [
  ...(node['Node Type'] === 'Seq Scan' && TABLES.includes(node['Relation Name'] ?? '') ? [node['Relation Name']!] : []),
  ...(node.Plans ?? []).flatMap(sequentialScans),
];

describe('search and filter plans', () => {
  const service = useTestService();
  let database: Database;
  const sent: SentStatement[] = [];
  const tree = { root: '', child: '', other: '' };
  let principal: Principal;

  /** Two trees: the caller's and another tenant's, each a root with 1,999 organizations below and 6,000 policies. */
  async function loadTree(sub: string): Promise<{ root: string; child: string }> {
    const [root] = await insertOrganizations(service, [{ ownerSub: sub, legalName: `${sub} Mutual` }]);
    const children = await insertOrganizations(
      service,
      Array.from({ length: 1999 }, (_, i) => ({
        parentId: root,
        ownerSub: sub,
        legalName: `${LEGAL_NAME_WORDS[i % 30]} ${LEGAL_NAME_WORDS[(i * 7) % 30]} Insurance LLC`,
      })),
    );
    // With each policy's issuance and first state, as the seed writes them (scripts/seed.ts).
    await service.sql(
      `with made as (
         insert into policy (id, number, organization_id, owner_firstname, owner_lastname, pet_name, effective_date, expiration_date,
           coverage_slug, coverage, created_by_sub, internal_id)
         select gen_random_uuid(), next_policy_number(), ($1::uuid[])[1 + g % 2000], ($2::text[])[1 + g % 120], ($3::text[])[1 + g / 120 % 240],
           ($4::text[])[1 + g / 7 % 160], date '2026-01-01' + (g % 300), date '2027-01-01' + (g % 300),
           (array['accident-only', 'accident-illness-basic', 'accident-illness-plus', 'accident-illness-unlimited'])[1 + g % 4], '{}'::jsonb,
           'bulk', 'crm-' || (g % 50)
         from generate_series(1, 6000) g
         returning id, effective_date, coverage_slug),
       issued as (
         insert into policy_transaction (id, policy_id, type, effective_date, created_by_sub)
         select gen_random_uuid(), m.id, 'issuance', m.effective_date, 'bulk' from made m returning id, policy_id)
       insert into policy_state (policy_id, version, transaction_id, valid_from, fields, dues, paid, unpaid_from)
       select m.id, 1, t.id, '-infinity', jsonb_build_object('coverageSlug', m.coverage_slug), jsonb_build_array(jsonb_build_array(m.effective_date, 1200)),
         0, m.effective_date
       from made m join issued t on t.policy_id = m.id`,
      [[root, ...children], FIRST_NAMES, LAST_NAMES, PET_NAMES],
    );
    return { root, child: children[0] };
  }

  beforeAll(async () => {
    ({ root: tree.root, child: tree.child } = await loadTree('planner'));
    tree.other = (await loadTree('other-tenant')).root;
    // And the platform's other tenants: 40 small trees, so that a tree is a small part of it.
    for (let t = 0; t < 40; t++) {
      const [root] = await insertOrganizations(service, [{ ownerSub: `tenant-${t}`, legalName: `Tenant ${t} Holdings Inc` }]);
      await insertOrganizations(
        service,
        Array.from({ length: 99 }, (_, i) => ({
          parentId: root,
          ownerSub: `tenant-${t}`,
          legalName: `${LEGAL_NAME_WORDS[(i + t) % 30]} Harbor Mutual`,
        })),
      );
    }
    for (const table of TABLES) await service.sql(`analyze ${table}`);
    principal = { sub: 'planner', org: tree.root };
    database = new Database({ url: service.databaseUrl });
    database.onStatement((statement) => sent.push(statement));
  });
  afterAll(() => database?.close());

  /** The plan of a statement as sent, in one plan cache mode: its sequential scans of the tables above. */
  async function scansOf(statement: SentStatement, mode: string): Promise<string[]> {
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      await client.query(`set plan_cache_mode = ${mode}`);
      await client.query(`prepare planned as ${statement.text}`);
      const values = statement.values.map((value) => (value === null ? 'null' : client.escapeLiteral(String(value))));
      const result = await client.query(`explain (format json) execute planned(${values.join(', ')})`);
      return sequentialScans(result.rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await client.end();
    }
  }

  /** Runs `read`, then checks the plans of every statement it sent. */
  async function expectIndexed(read: () => Promise<unknown>) {
    sent.length = 0;
    await read();
    expect(sent.length).toBeGreaterThan(0);
    for (const statement of [...sent]) {
      for (const mode of MODES) expect(await scansOf(statement, mode), `${mode}: ${statement.text}`).toEqual([]);
    }
  }

  const scope = { db: () => database, principal: () => principal, deadline: new Deadline(60) };
  const search = (q: string, filter: Partial<PolicyFilter> | null = null, organizationId: string | null = null) =>
    searchPolicies(
      database,
      principal,
      { q, filter: filter && policyFilterKey(filter, 15), first: 20, after: SEARCH_START, organizationId },
      () => {},
    );

  it.each(['be', 'bella', 'jon smyth', 'smyth', 'crm-7', '42'])('a policy search for "%s"', async (q) => {
    await expectIndexed(() => search(q));
  });

  it('a policy search of a subtree, and one that walks to its end', async () => {
    await expectIndexed(() => search('bella', null, tree.child));
    await expectIndexed(() => search('zzyzx-nothing'));
  });

  it.each(FILTERS.map((filter) => [JSON.stringify(filter), filter] as const))(
    'a filtered search, list and lookup: %s',
    async (_, filter) => {
      const key = policyFilterKey(filter, 15);
      await expectIndexed(() => search('max', filter));
      for (const batch of [policyPages, subtreePolicyPages]) {
        await expectIndexed(() => batch.read([{ ownerId: tree.root, first: 20, after: '0', filter: key }], { ...scope, db: database }));
      }
      await expectIndexed(() =>
        policiesByInternalId(database, principal, { internalID: 'crm-7', filter: key, first: 20, after: '0' }, () => {}),
      );
    },
  );

  it.each(['ha', 'harbor', 'harbour paws', 'Mutual'])('an organization search for "%s", of the reach and of a subtree', async (q) => {
    await expectIndexed(() => searchOrganizations(database, principal, { q, first: 20, after: SEARCH_START }));
    await expectIndexed(() => searchOrganizations(database, principal, { q, first: 20, after: SEARCH_START, organizationId: tree.child }));
  });
});
