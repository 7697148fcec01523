import 'reflect-metadata';
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { accessPredicate } from '../src/auth/access-rule.js';
import { mintToken } from '../src/auth/token-minter.js';
import { freePort, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { positional } from '../src/database/sql.js';
import { ACCESSIBLE_EVENTS_PAGE, EVENT_SELECT } from '../src/events/event.reads.js';
import { createLogger } from '../src/logger.js';
import { START_FLAGS } from '../src/v8-flags.js';
import { benchEnv, JWT_SECRET, LIMITS_HIGH, ready } from './bench-support.js';

/**
 * `npx tsx scripts/events-scan.ts [--events 1500000 --duration 20 --connections 16 --data-dir DIR]`:
 * security review 2, M2 (issue 22). Bulk-inserts `--events` events under another tenant through
 * SQL (standing in for 30 days of platform volume, spread over those days), then loads
 * `GET /api/v1/events` without `organizationId` from `--connections` concurrent callers of one
 * fresh `sub`, first with no organization, then with one it created; prints p50/p99 of each
 * and the plans of the statement before issue 22 and now. Done when p99 < 50 ms at 1.5 M.
 * A kept `--data-dir` keeps its events: a second run only measures.
 */
const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    events: { type: 'string', default: '1500000' },
    duration: { type: 'string', default: '20' },
    connections: { type: 'string', default: '16' },
  },
});
const wanted = Number(values.events);
const temporary = values['data-dir'] === undefined;
const dataDir = resolve(values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'org-policy-events-scan-')));
const database = await startEmbeddedPostgres(dataDir, createLogger('warn'));
const port = await freePort();
// The service as npm start runs it, from the sources (tsx), on its own process: the load
// generator here must not share its event loop. It runs the migrations at start.
const service = spawn(process.execPath, [...START_FLAGS, '--import', 'tsx', 'src/main.ts'], {
  env: {
    ...benchEnv(database.url),
    PORT: String(port),
    ...LIMITS_HIGH,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const db = new pg.Client({ connectionString: database.url });
try {
  await ready(port);
  await db.connect();
  await fillPlatform();
  const secret = new TextEncoder().encode(JWT_SECRET);
  const sub = `events-scan-${Date.now()}`;
  const token = await mintToken(secret, { sub, expiresIn: 3600 });
  await measure('a fresh sub, no organization', token);
  const created = await fetch(`http://127.0.0.1:${port}/api/v1/organization`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ legalName: 'Scan LLC', legalType: 'llc', taxId: '12-3456789' }),
  });
  if (created.status !== 200) throw new Error(`creating the caller's organization: ${created.status} ${await created.text()}`);
  await measure('the same sub with one organization', token);
  await explain(sub);
} finally {
  await db.end().catch(() => undefined);
  service.kill('SIGTERM');
  await new Promise((done) => service.once('exit', done));
  await database.stop();
  // A temporary data directory holds a gigabyte at full size.
  if (temporary) rmSync(dataDir, { recursive: true, force: true });
}

/** Another tenant: a root with 1,000 organizations below it, and `--events` events over them. */
async function fillPlatform(): Promise<void> {
  const [{ count }] = (await db.query<{ count: string }>('select count(*) from event')).rows;
  if (Number(count) >= wanted) return void console.log(`${count} events already on the platform`);
  const [root] = (
    await db.query<{ id: string }>(
      `insert into organization (id, owner_sub, name, legal_name, legal_type, tax_id)
     values (gen_random_uuid(), 'platform-tenant', 'Platform', 'Platform Inc', 'corporation', '1') returning id`,
    )
  ).rows;
  await db.query(
    `insert into organization (id, parent_id, owner_sub, name, legal_name, legal_type, tax_id)
     select gen_random_uuid(), $1, 'platform-tenant', 'Branch ' || i, 'Branch LLC', 'llc', '1' from generate_series(1, 1000) i`,
    [root.id],
  );
  const started = Date.now();
  const batch = 100_000;
  for (let done = Number(count); done < wanted; done += batch) {
    const size = Math.min(batch, wanted - done);
    // The trigger lists each under its path (event_ancestor), as a create's event is.
    await db.query(
      `with branches as (select array_agg(id order by seq) as ids from organization where parent_id = $4)
       insert into event (id, type, organization_id, created_at, data)
       select gen_random_uuid(), case when i % 5 = 0 then 'organization.created' else 'policy.created' end, branches.ids[1 + i % 1000],
              now() - interval '30 days' * (1 - (($1 + i)::float8 / $2)),
              jsonb_build_object('object', jsonb_build_object('number', $1 + i, 'petName', 'Rex', 'coverageSlug', 'accident-only'))
       from branches, generate_series(1, $3::int) i order by i`,
      [done, wanted, size, root.id],
    );
    console.log(`inserted ${done + size} of ${wanted} events (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  await db.query('analyze organization, event, event_ancestor');
}

async function measure(who: string, token: string): Promise<void> {
  const load = (duration: number) =>
    autocannon({
      url: `http://127.0.0.1:${port}/api/v1/events`,
      connections: Number(values.connections),
      duration,
      headers: { authorization: `Bearer ${token}` },
    });
  // Two seconds first, not counted: the service's code and the prepared statements warm up.
  await load(2);
  const result = await load(Number(values.duration));
  console.log(
    `GET /api/v1/events, ${who}, ${values.connections} concurrent: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
      `${Math.round(result.requests.average)} req/s, ${result.requests.total} requests, non-2xx ${result.non2xx}, errors ${result.errors}`,
  );
}

/** The plans of the page statement before issue 22 (every event in order, each checked) and now. */
async function explain(sub: string): Promise<void> {
  const principal = { sub, org: null };
  const access = accessPredicate('o', principal);
  const before = positional(`select ${EVENT_SELECT}, e.seq from event e join organization o on o.id = e.organization_id
     where e.seq > ?::bigint and ${access.sql} and (?::text[] is null or e.type = any(?::text[]))
     order by e.seq limit ?`);
  const parentAccess = accessPredicate('parent', principal);
  const now = positional(ACCESSIBLE_EVENTS_PAGE(parentAccess.sql));
  const plans: Array<[string, string, unknown[]]> = [
    ['before', before, ['0', ...access.params, null, null, 21]],
    ['now', now, [principal.org, principal.sub, ...parentAccess.params, '0', null, 21, 21]],
  ];
  for (const [name, text, params] of plans) {
    const rows = (await db.query(`explain (analyze, buffers) ${text}`, params)).rows as Array<{ 'QUERY PLAN': string }>;
    console.log(`\n-- ${name}: the first page of the unfiltered list for that sub\n${rows.map((row) => row['QUERY PLAN']).join('\n')}`);
  }
}
