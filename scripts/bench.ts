import 'reflect-metadata';
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { mintToken } from '../src/auth/token-minter.js';
import { freePort, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { createLogger } from '../src/logger.js';
import type { SeedTree } from './seed.js';

/**
 * `npm run bench [-- --data-dir DIR --connections 32 --duration 10]`: loads the service and the
 * hand-written baseline (scripts/bench-baseline.ts) with autocannon, one after the other on the
 * same seeded database, and prints req/s, latency, errors and the service/baseline ratio.
 * Without --data-dir it seeds a fresh temporary database (--orgs, --policies, --depth).
 * Both servers run compiled (npm run build) in processes of their own.
 */
const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    connections: { type: 'string', default: '32' },
    duration: { type: 'string', default: '10' },
    orgs: { type: 'string', default: '2000' },
    policies: { type: 'string', default: '20000' },
    depth: { type: 'string', default: '20' },
  },
});
const connections = Number(values.connections);
const duration = Number(values.duration);
const JWT_SECRET = 'benchmark-secret-that-is-at-least-32-bytes';

const dataDir = resolve(values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'org-policy-bench-')));
run('npm', ['run', 'build', '--silent']);
if (!existsSync(join(dataDir, 'seed.json'))) {
  console.log(`seeding ${dataDir} ...`);
  run('node', ['dist/scripts/seed.js', '--orgs', values.orgs!, '--policies', values.policies!, '--depth', values.depth!], { DATA_DIR: dataDir });
}
const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8')) as { summary: object; trees: SeedTree[] };

const database = await startEmbeddedPostgres(dataDir, createLogger('warn'));
const servicePort = await freePort();
const baselinePort = await freePort();
const env = {
  ...process.env,
  NODE_ENV: 'production',
  DATABASE_URL: database.url,
  JWT_SECRET,
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  LOG_LEVEL: 'info',
  HOST: '127.0.0.1',
};
const service = spawn('node', ['dist/src/main.js'], { env: { ...env, PORT: String(servicePort) }, stdio: 'ignore' });
const baseline = spawn('node', ['dist/scripts/bench-baseline.js'], { env: { ...env, PORT: String(baselinePort) }, stdio: 'ignore' });

try {
  await Promise.all([ready(servicePort), ready(baselinePort)]);
  // Every request reads a policy or organization at the deepest level (depth 20) of a tree,
  // as its root's owner acting for the root: the access check walks the whole path.
  const trees = seed.trees.filter((tree) => tree.deepPolicies.length > 0);
  const tokens = await Promise.all(trees.map((tree) => mintToken(new TextEncoder().encode(JWT_SECRET), { sub: tree.ownerSub, org: tree.rootId, expiresIn: 3600 })));
  let turn = 0;
  const pick = () => {
    const index = turn++ % trees.length;
    const tree = trees[index];
    return { tree, token: tokens[index], number: tree.deepPolicies[turn % tree.deepPolicies.length], org: tree.deepest[turn % tree.deepest.length] };
  };
  const charges = 'id type periodStart periodEnd dueDate amount currency status';
  const scenarios: Array<[string, () => { method: string; path: string; token: string; body?: string }]> = [
    ['REST GET policy', () => { const p = pick(); return { method: 'GET', path: `/api/v1/policy/${p.number}`, token: p.token }; }],
    ['GraphQL policy query', () => {
      const p = pick();
      const query = `query Policy($number: SafeInt!) { policy(number: $number) { number coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency } charges { ${charges} } organization { id name parentId } } }`;
      return { method: 'POST', path: '/graphql', token: p.token, body: JSON.stringify({ query, variables: { number: p.number } }) };
    }],
    ['REST GET organization', () => { const p = pick(); return { method: 'GET', path: `/api/v1/organization/${p.org}`, token: p.token }; }],
    ['REST POST policy', () => {
      const p = pick();
      const body = { organizationId: p.org, ownerFirstname: 'Bench', ownerLastname: 'Mark', petName: 'Rex', effectiveDate: '2026-03-01', expirationDate: '2027-03-01', coverageSlug: 'accident-illness-plus', cvc: '123' };
      return { method: 'POST', path: '/api/v1/policy', token: p.token, body: JSON.stringify(body) };
    }],
  ];

  const rows: string[] = [];
  for (const [name, next] of scenarios) {
    const ours = await load(servicePort, next);
    const theirs = await load(baselinePort, next);
    rows.push(
      `| ${name} | ${fmt(ours)} | ${fmt(theirs)} | **${(ours.rps / theirs.rps).toFixed(2)}x** |`,
    );
    console.log(rows.at(-1));
  }
  const rss = peakRss(service.pid!);
  console.log(`\nDataset: ${JSON.stringify(seed.summary)}`);
  console.log(`autocannon: ${connections} connections, ${duration} s per run; service peak RSS ${rss} MB\n`);
  console.log('| scenario | service req/s, p50/p99 ms, errors, non-2xx | baseline req/s, p50/p99 ms, errors, non-2xx | ratio |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  for (const child of [service, baseline]) await stop(child);
  await database.stop();
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(port: number, next: () => { method: string; path: string; token: string; body?: string }): Promise<Measured> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration,
    requests: [
      {
        setupRequest: (request) => {
          const { method, path, token, body } = next();
          return {
            ...request,
            method: method as 'GET',
            path,
            body,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          };
        },
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

function fmt(m: Measured): string {
  return `${Math.round(m.rps)}, ${m.p50}/${m.p99}, ${m.errors}, ${m.non2xx}`;
}

function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

async function ready(port: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/v1/policy/1`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`nothing listens on ${port}`);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function run(command: string, args: string[], extraEnv: Record<string, string> = {}): void {
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...extraEnv } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
}
