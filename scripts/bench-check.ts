import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintToken } from '../src/auth/token-minter.js';
import { freePort, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { createLogger } from '../src/logger.js';
import { START_FLAGS } from '../src/v8-flags.js';
import { benchEnv, JWT_SECRET, LIMITS_HIGH, ready } from './bench-support.js';
import { difference, madeRecordComparisons, scenarioComparisons, type Comparison, type Made, type Sent } from './bench-check-cases.js';
import { deepParentsOf, roundRobin, trustedPolicyDocument, type BenchRequest } from './bench-scenarios.js';
import type { SeedTree } from './seed.js';

/**
 * `npm run bench:check`: does the baseline (bench-baseline.ts) answer what the service answers?
 * A few dozen requests, no load. Builds, seeds a small temporary database (200 organizations
 * at depth 20, 2,000 policies), starts the service as the bench does (the trusted document's
 * manifest loaded) and the baseline on it, and adds through the service's API what the seed
 * lacks: an organization with every field (an address with extra properties, bank accounts,
 * owners, a change), and policies with an internalID and both dates of birth, mid-term changes
 * (in effect and not yet), a cancellation ahead and one in effect, a reinstatement, a renewal
 * and its successor. Then it sends the same requests to both: every scenario of the bench
 * (bench-scenarios.ts) a few times, and each read of those records (bench-check-cases.ts). Bodies
 * must be equal byte for byte (creates with their ids and numbers masked); on any difference it
 * prints where the parsed bodies first differ (a value, or the keys' order) and exits 1.
 * Statuses must agree, and REST GET organization's ETag. test/in-process/bench-baseline.test.ts
 * makes the same comparisons in process, in the fast tier.
 */
run('npm', ['run', 'build', '--silent']);
const dataDir = mkdtempSync(join(tmpdir(), 'org-policy-bench-check-'));
run('node', ['dist/scripts/seed.js', '--orgs', '200', '--policies', '2000', '--depth', '20'], { DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8')) as { trees: SeedTree[] };
const trusted = trustedPolicyDocument();
const manifestPath = join(dataDir, 'persisted-documents.json');
writeFileSync(manifestPath, JSON.stringify({ [trusted.id]: trusted.text }));

const database = await startEmbeddedPostgres(dataDir, createLogger('warn'));
const env = {
  ...benchEnv(database.url),
  GRAPHQL_TRUSTED_DOCUMENTS: manifestPath,
  ...LIMITS_HIGH,
};
const [servicePort, baselinePort] = [await freePort(), await freePort()];
const children: ChildProcess[] = [];
const failures: string[] = [];
let compared = 0;

try {
  children.push(
    spawn('node', [...START_FLAGS, 'dist/src/main.js'], {
      env: { ...env, PORT: String(servicePort) },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  await ready(servicePort);
  children.push(
    spawn('node', ['dist/scripts/bench-baseline.js'], {
      env: { ...env, PORT: String(baselinePort) },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  await ready(baselinePort);

  const trees = seed.trees.filter((tree) => tree.deepPolicies.length > 0);
  if (trees.length < 2) throw new Error('the seed made fewer than two full trees');
  const deepParents = await deepParentsOf(database.url, trees);
  const secret = new TextEncoder().encode(JWT_SECRET);
  const tokens = await Promise.all(trees.map((tree) => mintToken(secret, { sub: tree.ownerSub, org: tree.rootId, expiresIn: 3600 })));

  // The bench's scenarios, each a few times over both trees, the same request to both servers.
  for (const comparison of scenarioComparisons(roundRobin(trees, tokens), deepParents, trusted.id)) await compare(comparison);

  // What the seed lacks, made through the service as the first tree's owner, under a deepest organization.
  const made: Made = async (method, path, body) => {
    const answer = await send(servicePort, { method, path, token: tokens[0], body: JSON.stringify(body) });
    if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return JSON.parse(answer.text);
  };
  for (const comparison of await madeRecordComparisons(made, trees[0], tokens[0], trees[1], trusted.id)) await compare(comparison);
} finally {
  for (const child of children) await stop(child);
  await database.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`\nbench:check: ${failures.length} of ${compared} answers differ between the service and the baseline:\n`);
  for (const failure of failures) console.error(`- ${failure}`);
  process.exit(1);
}
console.log(`bench:check: the baseline answered all ${compared} requests exactly as the service did`);

/** Sends the comparison's requests to the service and the baseline, and records any difference. */
async function compare(comparison: Comparison): Promise<void> {
  compared += 1;
  const service = await send(servicePort, comparison.request);
  const baseline = await send(baselinePort, comparison.baselineRequest ?? comparison.request);
  const differs = difference(comparison, service, baseline);
  if (differs) failures.push(differs);
}

async function send(port: number, request: BenchRequest): Promise<Sent> {
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method,
    headers: { authorization: `Bearer ${request.token}`, 'content-type': 'application/json' },
    body: request.body,
  });
  return { status: response.status, text: await response.text(), etag: response.headers.get('etag') };
}

function run(command: string, args: string[], extraEnv: Record<string, string> = {}): void {
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...extraEnv } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
