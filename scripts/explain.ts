import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { accessPredicate } from '../src/auth/access-rule.js';
import { ORGANIZATION_BY_ID } from '../src/organizations/organization.reads.js';
import { POLICIES_PAGE, POLICY_BY_NUMBER, SUBTREE_POLICIES_PAGE, SUBTREE_POLICIES_WALK_END } from '../src/policies/policy.reads.js';
import { PolicyStatus } from '../src/policies/policy-status.js';
import { policyFilterKey } from '../src/policies/policy-filters.js';
import { POLICIES_BY_INTERNAL_ID } from '../src/policies/policy-internal-id.reads.js';
import { loadConfig } from '../src/config.js';
import { positional, uuidArray } from '../src/database/sql.js';
import { Database, type SentStatement } from '../src/database/database.js';
import { SEARCH_START } from '../src/graphql/search-position.js';
import { searchOrganizations } from '../src/organizations/organization-search.js';
import { searchPolicies } from '../src/policies/policy-search.js';
import { createLogger } from '../src/logger.js';
import type { SeedTree } from './seed.js';

/**
 * `npm run explain`: EXPLAIN ANALYZE of the two access-checked reads, exactly as the service
 * sends them, for an organization and a policy at the deepest level of a seeded tree, as the
 * root's owner acting for the root (the check must look along the whole path); the lists' pages,
 * filtered and not; and the searches (contract section 23), each also planned generic.
 */
const config = loadConfig();
const seed = JSON.parse(readFileSync(join(config.dataDir, 'seed.json'), 'utf8')) as { summary: unknown; trees: SeedTree[] };
const tree = seed.trees.find((candidate) => candidate.deepPolicies.length > 0)!;
const embedded = config.databaseUrl
  ? null
  : await (await import('../src/database/embedded-postgres.js')).startEmbeddedPostgres(config.dataDir, createLogger('warn'));
const client = new pg.Client({ connectionString: config.databaseUrl ?? embedded!.url });
await client.connect();
try {
  const principal = { sub: tree.ownerSub, org: tree.rootId };
  const access = accessPredicate('o', principal);
  const [{ depth }] = (await client.query('select cardinality(path) as depth from organization where id = $1', [tree.deepest[0]])).rows;
  console.log(`dataset ${JSON.stringify(seed.summary)}\norganization ${tree.deepest[0]} at depth ${depth}\n`);
  const [{ parent_id: deepParent }] = (await client.query('select parent_id from organization where id = $1', [tree.deepest[0]])).rows;
  const [{ count: subtreeSize }] = (await client.query('select count(*) from policy_ancestor where ancestor_id = $1', [tree.rootId])).rows;
  // A page of 20 (21 rows asked: one more tells whether a next page exists), from the start.
  const page = [0, 21, null];
  for (const [name, sql, params] of [
    ['organization by id', ORGANIZATION_BY_ID(access.sql), [tree.deepest[0], ...access.params]],
    ['policy by number, with charges and organization', POLICY_BY_NUMBER(access.sql), [tree.deepPolicies[0], ...access.params]],
    [
      `a page of the root's subtree policies (${subtreeSize} policies)`,
      SUBTREE_POLICIES_PAGE(null)(access.sql),
      [uuidArray([tree.rootId]), ...access.params, ...page],
    ],
    [
      'a page of a deep subtree (the parent of the deepest level)',
      SUBTREE_POLICIES_PAGE(null)(access.sql),
      [uuidArray([deepParent]), ...access.params, ...page],
    ],
    ["a page of the root's own policies", POLICIES_PAGE(null)(access.sql), [uuidArray([tree.rootId]), ...access.params, ...page]],
    // A rare status walks at most STATUS_FILTER_WALK policies, then says where it stopped.
    [
      "a page of the root's subtree policies, status cancelled",
      SUBTREE_POLICIES_PAGE(policyFilterKey({ status: PolicyStatus.cancelled }))(access.sql),
      [uuidArray([tree.rootId]), ...access.params, ...page],
    ],
    ['where that walk stopped', SUBTREE_POLICIES_WALK_END(access.sql), [uuidArray([tree.rootId]), ...access.params, 0]],
    [
      "a page of the root's subtree policies, status active",
      SUBTREE_POLICIES_PAGE(policyFilterKey({ status: PolicyStatus.active }))(access.sql),
      [uuidArray([tree.rootId]), ...access.params, ...page],
    ],
    // Contract section 19: "all past-due policies of my tree", the billing team's morning query, walks as the status filter does.
    [
      "a page of the root's subtree policies, billingStatus past_due",
      SUBTREE_POLICIES_PAGE(policyFilterKey({ billingStatus: 'past_due' }, 15))(access.sql),
      [uuidArray([tree.rootId]), ...access.params, ...page],
    ],
    // Contract section 18: by the integrator's own key, one range of policy_ancestor_internal_id_index per entry point.
    [
      'policies by internalID',
      POLICIES_BY_INTERNAL_ID(accessPredicate('parent', principal).sql),
      [principal.org, principal.sub, ...accessPredicate('parent', principal).params, 'ext-1', 0, 21, null],
    ],
  ] as const) {
    const { rows } = await client.query(`explain (analyze, buffers) ${positional(sql)}`, [...params]);
    console.log(`-- ${name}\n${rows.map((row) => row['QUERY PLAN']).join('\n')}\n`);
  }
  await explainSearches(config.databaseUrl ?? embedded!.url, client, principal);
} finally {
  await client.end();
  await embedded?.stop();
}

/**
 * Contract section 23: the searches and a filtered search, exactly as the service sends them
 * (recorded from the read functions themselves), as the root's owner acting for the root: each
 * statement's plan with EXPLAIN ANALYZE, and whether any plan, custom or generic, reads a table
 * of policies or organizations by a sequential scan (test/e2e/search-plans.test.ts checks it).
 */
async function explainSearches(url: string, client: pg.Client, principal: { sub: string; org: string }) {
  const database = new Database({ url, max: 1 });
  const sent: SentStatement[] = [];
  database.onStatement((statement) => sent.push(statement));
  const start = { first: 20, after: SEARCH_START };
  const searches: Array<[string, () => Promise<unknown>]> = [
    ['a typeahead search, "be"', () => searchPolicies(database, principal, { q: 'be', filter: null, ...start }, () => {})],
    ['a policy search, "bella"', () => searchPolicies(database, principal, { q: 'bella', filter: null, ...start }, () => {})],
    ['a policy search, "jon smyth"', () => searchPolicies(database, principal, { q: 'jon smyth', filter: null, ...start }, () => {})],
    [
      'a policy search, "max", status active and plan accident-illness-plus',
      () =>
        searchPolicies(
          database,
          principal,
          { q: 'max', filter: policyFilterKey({ status: PolicyStatus.active, coverageSlug: 'accident-illness-plus' }, 15), ...start },
          () => {},
        ),
    ],
    ['an organization search, "harbor paws"', () => searchOrganizations(database, principal, { q: 'harbor paws', ...start })],
  ];
  try {
    for (const [name, search] of searches) {
      sent.length = 0;
      await search();
      for (const [index, { text, values }] of sent.entries()) {
        const { rows } = await client.query(`explain (analyze, buffers) ${text}`, [...values]);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        console.log(`-- ${name}${sent.length > 1 ? ` (statement ${index + 1} of ${sent.length})` : ''}\n${plan}\n`);
        for (const mode of ['force_custom_plan', 'force_generic_plan']) {
          const scans = await sequentialScansOf(client, mode, text, values);
          if (scans.length > 0) console.log(`!! ${mode}: sequential scan of ${scans.join(', ')}\n`);
        }
      }
    }
  } finally {
    await database.close();
  }
}

/** The tables of policies and organizations a plan of this statement reads by a sequential scan. */
async function sequentialScansOf(client: pg.Client, mode: string, text: string, values: readonly unknown[]): Promise<string[]> {
  await client.query(`set plan_cache_mode = ${mode}`);
  await client.query(`prepare planned as ${text}`);
  try {
    const literals = values.map((value) => (value === null ? 'null' : client.escapeLiteral(String(value))));
    const { rows } = await client.query(`explain (format json) execute planned(${literals.join(', ')})`);
    const scans = (node: { 'Node Type': string; 'Relation Name'?: string; Plans?: unknown[] }): string[] => [
      ...(node['Node Type'] === 'Seq Scan' && /^(policy|organization)/.test(node['Relation Name'] ?? '') ? [node['Relation Name']!] : []),
      ...((node.Plans ?? []) as Array<typeof node>).flatMap(scans),
    ];
    return scans(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('deallocate planned');
    await client.query('reset plan_cache_mode');
  }
}
