import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { Database } from '../src/database/database.js';
import { migrateDatabase } from '../src/database/migrate.js';
import { treeLimitSettings } from '../src/limits/tree-depth.js';
import { createLogger } from '../src/logger.js';
import { FIRST_NAMES, LAST_NAMES, LEGAL_NAME_SUFFIXES, LEGAL_NAME_WORDS, PET_NAMES } from './seed-names.js';

/**
 * `npm run seed -- --orgs 100000 --policies 1000000 --depth 20`: bulk-loads organizations in
 * trees of the given depth and policies with their 12 monthly charges, through the real
 * schema (the ancestry trigger, constraints and foreign keys all apply), with multi-row
 * inserts. Uses DATABASE_URL, else the embedded PostgreSQL under DATA_DIR (default .data).
 * Writes `<DATA_DIR>/seed.json`: per tree its root, owner and deepest organizations and some
 * policy numbers, for the benchmark.
 */
const { values } = parseArgs({
  options: {
    orgs: { type: 'string', default: '1000' },
    policies: { type: 'string', default: '10000' },
    depth: { type: 'string', default: '20' },
    width: { type: 'string', default: '5' },
  },
});
const orgCount = positive('orgs', values.orgs);
const policyCount = positive('policies', values.policies);
const depth = positive('depth', values.depth);
const width = positive('width', values.width);

function positive(name: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    console.error(`--${name} must be a positive integer`);
    process.exit(1);
  }
  return number;
}

export interface SeedTree {
  rootId: string;
  ownerSub: string;
  /** Organizations on the deepest level of the tree. */
  deepest: string[];
  /** Some policy numbers of those deepest organizations. */
  deepPolicies: number[];
}

const config = loadConfig();
if (depth > config.limits.organizationMaxDepth) {
  console.error(
    `--depth ${depth} is over ORGANIZATION_MAX_DEPTH (${config.limits.organizationMaxDepth}); the database would refuse the deeper levels`,
  );
  process.exit(1);
}
const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
const embedded = config.databaseUrl
  ? null
  : await (await import('../src/database/embedded-postgres.js')).startEmbeddedPostgres(config.dataDir, logger);
const databaseUrl = config.databaseUrl ?? embedded!.url;
await migrateDatabase(databaseUrl, logger);
// With the service's tree limits: the depth trigger allows what ORGANIZATION_MAX_DEPTH does. One
// connection: the temporary table of seedPolicies lives on it.
const db = new Database({ url: databaseUrl, options: treeLimitSettings(config.limits), max: 1 });
const started = Date.now();
try {
  const trees = await withoutTreeCounting(() => seedOrganizations());
  const organizationsDone = Date.now();
  await withoutTreeCounting(() => seedPolicies(trees));
  const summary = {
    organizations: orgCount,
    policies: policyCount,
    charges: policyCount * 12,
    depth,
    trees: trees.length,
    seconds: { organizations: (organizationsDone - started) / 1000, policiesAndCharges: (Date.now() - organizationsDone) / 1000 },
  };
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(join(config.dataDir, 'seed.json'), JSON.stringify({ summary, trees: trees.slice(0, 50) }, null, 2));
  console.log(JSON.stringify(summary));
} finally {
  await db.close();
  await embedded?.stop();
}

/**
 * Trees of `depth` levels with `width` organizations per level; each organization's parent is
 * one of the level above. Inserted level by level so every parent row exists for the trigger.
 */
async function seedOrganizations(): Promise<SeedTree[]> {
  const perTree = 1 + (depth - 1) * width;
  const treeCount = Math.ceil(orgCount / perTree);
  const trees: SeedTree[] = [];
  const levels: Array<Array<{ id: string; parent: string | null; owner: string }>> = Array.from({ length: depth }, () => []);
  let made = 0;
  for (let t = 0; t < treeCount && made < orgCount; t++) {
    const owner = `seed-owner-${t}`;
    let above: string[] = [];
    const tree: SeedTree = { rootId: '', ownerSub: owner, deepest: [], deepPolicies: [] };
    for (let level = 0; level < depth && made < orgCount; level++) {
      const here: string[] = [];
      const count = level === 0 ? 1 : width;
      for (let w = 0; w < count && made < orgCount; w++, made++) {
        const id = randomUUID();
        levels[level].push({ id, parent: level === 0 ? null : above[w % above.length], owner });
        here.push(id);
      }
      if (level === 0) tree.rootId = here[0];
      if (level === depth - 1) tree.deepest = here;
      above = here;
    }
    trees.push(tree);
  }
  for (const rows of levels) {
    for (let from = 0; from < rows.length; from += 5_000) {
      const batch = rows.slice(from, from + 5_000);
      await db.query(
        // Legal names from seed-names.ts: two words and a suffix, 5,400 of them, for the organization search.
        `insert into organization (id, parent_id, owner_sub, name, legal_name, legal_type, tax_id)
         select id, parent, owner, 'Seed ' || left(id::text, 8),
                w.words[1 + (k % 30)] || ' ' || w.words[1 + (k / 30 % 30)] || ' ' || w.suffixes[1 + (k / 900 % 6)], 'llc', '00-0000000'
         from unnest(?::uuid[], ?::uuid[], ?::text[]) with ordinality as t(id, parent, owner, k)
         cross join (select ?::text[] as words, ?::text[] as suffixes) w`,
        [
          pgArray(batch.map((r) => r.id)),
          pgArray(batch.map((r) => r.parent)),
          pgArray(batch.map((r) => r.owner)),
          pgArray(LEGAL_NAME_WORDS),
          pgArray(LEGAL_NAME_SUFFIXES),
        ],
      );
    }
  }
  return trees;
}

/**
 * Policies spread over every organization, one year from a day between the 1st and the 28th
 * (so the monthly schedule needs no clamping), with their issuance transaction, its 12
 * charges and the state it leaves (policy_state), set-based in SQL.
 */
async function seedPolicies(trees: SeedTree[]): Promise<void> {
  await db.query('create temporary table seed_org as select row_number() over (order by seq) as rn, id from organization');
  await db.query('create index on seed_org (rn)');
  const [{ total }] = await db.query<{ total: string }>('select count(*) as total from seed_org');
  const batch = 100_000;
  for (let from = 0; from < policyCount; from += batch) {
    const to = Math.min(from + batch, policyCount) - 1;
    await db.query(
      `with plans as (
         select row_number() over (order by slug) - 1 as k, slug,
                jsonb_build_object('slug', slug, 'name', name, 'deductible', deductible, 'reimbursementRate', reimbursement_rate,
                  'annualLimit', annual_limit, 'monthlyPremium', monthly_premium, 'currency', currency) as snapshot
         from coverage_plan),
       made as (
         insert into policy (id, number, organization_id, owner_firstname, owner_lastname, pet_name, effective_date, expiration_date, coverage_slug, coverage, created_by_sub)
         select gen_random_uuid(), nextval('policy_number_seq'), o.id,
                -- seed-names.ts: 28,800 owners' full names (each on every 28,800th policy) and 160 pets' names.
                names.first[1 + (n % 120)], names.last[1 + (n / 120 % 240)], names.pet[1 + (n / 7 % 160)],
                date '2026-01-01' + (n % 28)::int, (date '2026-01-01' + (n % 28)::int) + interval '1 year', p.slug, p.snapshot, 'seed'
         from generate_series(?::bigint, ?::bigint) as n
         join seed_org o on o.rn = 1 + (n % ?::bigint)
         join plans p on p.k = n % 4
         cross join (select ?::text[] as first, ?::text[] as last, ?::text[] as pet) names
         returning id, effective_date, coverage, coverage_slug, owner_firstname, owner_lastname, pet_name
       ),
       issued as (
         insert into policy_transaction (id, policy_id, type, effective_date, created_by_sub)
         select gen_random_uuid(), m.id, 'issuance', m.effective_date, 'seed' from made m
         returning id, policy_id
       ),
       -- Its first stored state (policy_state), as the service's writer makes it: version 1, its fields from the start.
       stated as (
         insert into policy_state (policy_id, version, transaction_id, valid_from, fields, dues, paid, unpaid_from)
         select m.id, 1, t.id, '-infinity', jsonb_build_object('petName', m.pet_name, 'petDOB', null, 'ownerFirstname', m.owner_firstname,
                  'ownerLastname', m.owner_lastname, 'ownerDOB', null, 'coverageSlug', m.coverage_slug, 'coverage', m.coverage),
                -- Billing's basis (contract section 19): the twelve premiums below by due date, nothing paid.
                (select jsonb_agg(jsonb_build_array((m.effective_date + make_interval(months => k))::date, (m.coverage ->> 'monthlyPremium')::int)
                   order by k) from generate_series(0, 11) as k),
                0, m.effective_date
         from made m join issued t on t.policy_id = m.id
       )
       insert into charge (id, policy_id, transaction_id, sequence, type, period_start, period_end, due_date, amount, currency, status)
       select gen_random_uuid(), m.id, t.id, k, 'premium', m.effective_date + make_interval(months => k),
              m.effective_date + make_interval(months => k + 1), m.effective_date + make_interval(months => k),
              (m.coverage ->> 'monthlyPremium')::int, 'USD', 'scheduled'
       from made m join issued t on t.policy_id = m.id cross join generate_series(0, 11) as k`,
      [from, to, total, pgArray(FIRST_NAMES), pgArray(LAST_NAMES), pgArray(PET_NAMES)],
    );
    process.stdout.write(`\rpolicies ${to + 1} / ${policyCount}`);
  }
  process.stdout.write('\n');
  await db.query('analyze');
  for (const tree of trees.slice(0, 50)) {
    const rows = await db.query<{ number: string }>(
      `select number from policy where organization_id = any(?::uuid[]) order by number limit 200`,
      [pgArray(tree.deepest)],
    );
    tree.deepPolicies = rows.map((row) => Number(row.number));
  }
}

/**
 * The per-tree counters (tree_usage, contract section 12) are kept by a deferred row trigger,
 * one update of the tree's row per insert: right for the service's one create per transaction,
 * but a bulk insert of 100,000 policies into one tree would update one row 100,000 times in a
 * transaction, each update walking the row's growing chain of versions. The seed turns the
 * triggers off for its bulk inserts and counts every tree once afterwards.
 */
async function withoutTreeCounting<T>(work: () => Promise<T>): Promise<T> {
  // Several statements in one text: sent unnamed and without values (the simple protocol).
  await db.executeSql(
    'alter table organization disable trigger organization_tree_usage; alter table policy disable trigger policy_tree_usage',
  );
  try {
    return await work();
  } finally {
    await db.executeSql(`
      alter table organization enable trigger organization_tree_usage;
      alter table policy enable trigger policy_tree_usage;
      insert into tree_usage as u (root_id, organizations, policies)
      select o.path[1], count(*), 0 from organization o group by o.path[1]
      on conflict (root_id) do update set organizations = excluded.organizations;
      update tree_usage u set policies = c.n
        from (select o.path[1] as root, count(*) as n from policy p join organization o on o.id = p.organization_id group by o.path[1]) c
        where u.root_id = c.root`);
  }
}

/** A PostgreSQL array literal of uuids, texts or nulls (the values here need no quoting). */
function pgArray(values: Array<string | null>): string {
  return `{${values.map((value) => (value === null ? 'NULL' : `"${value}"`)).join(',')}}`;
}
