import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintToken } from '../src/auth/token-minter.js';
import { freePort, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { startStandby } from '../src/database/embedded-standby.js';
import { createLogger } from '../src/logger.js';
import { START_FLAGS } from '../src/v8-flags.js';
import { benchEnv, cpuMillis, JWT_SECRET, LIMITS_HIGH, ready } from './bench-support.js';
import { asRequest, benchScenarios, deepParentsOf, roundRobin, type BenchRequest } from './bench-scenarios.js';
import type { SeedTree } from './seed.js';

/**
 * `npx tsx scripts/bench-replicas.ts DATA_DIR` (a directory `npm run bench` seeded; `npm run
 * build` first): the same reads served from the primary and from a streaming standby of it, on
 * one machine, in one run (contract section 17, docs/scaling.md). The standby is a live copy of
 * the bench database (src/database/embedded-standby.ts). Two service processes, one without
 * replicas and one with DATABASE_REPLICA_URLS, are loaded at the same time with half the
 * connections each, in rounds; each round reports their req/s and CPU per request, and how many
 * reads the second served from the replica (db_reads_total). One 2-core machine runs both
 * PostgreSQL servers, both services and the load: it shows what a replica costs and that reads
 * go to it, not what it would gain on hardware of its own.
 */
const dataDir = process.argv[2];
if (!dataDir || !existsSync(join(dataDir, 'seed.json')))
  throw new Error('usage: npx tsx scripts/bench-replicas.ts DATA_DIR (seeded by npm run bench)');
const connections = 32;
const METRICS_TOKEN = 'bench-replicas-metrics';
const seconds = 10;
const rounds = 4;
const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8')) as { trees: SeedTree[] };
const logger = createLogger('warn');
const primary = await startEmbeddedPostgres(dataDir, logger);
const standbyDir = await mkdtemp(join(tmpdir(), 'org-policy-bench-standby-'));
const standby = await startStandby({ primaryUrl: primary.url, primaryDir: join(dataDir, 'postgres'), databaseDir: standbyDir, logger });
const started: ChildProcess[] = [];
try {
  const start = async (replicaUrls: string | undefined) => {
    const port = await freePort();
    const child = spawn('node', [...START_FLAGS, 'dist/src/main.js'], {
      env: {
        ...benchEnv(primary.url, 'info'),
        ...LIMITS_HIGH,
        MIGRATE_ON_START: 'false',
        WEBHOOK_DELIVERY: 'false',
        PORT: String(port),
        MAX_CONNECTIONS_PER_ADDRESS: '1000',
        METRICS_TOKEN,
        ...(replicaUrls ? { DATABASE_REPLICA_URLS: replicaUrls } : {}),
      },
      stdio: 'ignore',
    });
    started.push(child);
    await ready(port);
    return { port, child };
  };
  const onPrimary = await start(undefined);
  const withReplica = await start(standby.url);
  const trees = seed.trees.filter((tree) => tree.deepPolicies.length > 0);
  const secret = new TextEncoder().encode(JWT_SECRET);
  const tokens = await Promise.all(trees.map((tree) => mintToken(secret, { sub: tree.ownerSub, org: tree.rootId, expiresIn: 3600 })));
  const scenarios = benchScenarios(roundRobin(trees, tokens), await deepParentsOf(primary.url, trees)).filter(([name]) =>
    ['REST GET policy', 'GraphQL policy query', 'REST GET organization'].includes(name),
  );
  console.log(
    `| read | primary only: req/s, CPU per request | with the replica: req/s, CPU per request | throughput with / without (each round) | reads served by the replica |`,
  );
  console.log('|---|---|---|---|---|');
  for (const [name, next] of scenarios) {
    const measured: Array<{ a: Run; b: Run; replicaShare: number }> = [];
    for (let round = 0; round < rounds; round++) {
      await Promise.all([onPrimary, withReplica].map(({ port }) => load(port, next, 3)));
      const reads = await replicaReads(withReplica.port);
      const before = [onPrimary, withReplica].map(({ child }) => cpuMillis(child.pid ?? 0));
      const [a, b] = await Promise.all([onPrimary, withReplica].map(({ port }) => load(port, next, seconds)));
      const used = [onPrimary, withReplica].map(({ child }, index) => cpuMillis(child.pid ?? 0) - before[index]);
      a.cpu = (used[0] * 1000) / (a.rps * seconds);
      b.cpu = (used[1] * 1000) / (b.rps * seconds);
      const after = await replicaReads(withReplica.port);
      measured.push({ a, b, replicaShare: (after.replica - reads.replica) / Math.max(1, after.total - reads.total) });
    }
    const mean = (pick: (entry: (typeof measured)[number]) => number) =>
      measured.reduce((sum, entry) => sum + pick(entry), 0) / measured.length;
    console.log(
      `| ${name} | ${mean(({ a }) => a.rps).toFixed(0)}, ${mean(({ a }) => a.cpu ?? 0).toFixed(0)} µs | ${mean(({ b }) => b.rps).toFixed(0)}, ${mean(({ b }) => b.cpu ?? 0).toFixed(0)} µs | **${mean(({ a, b }) => b.rps / a.rps).toFixed(2)}x** (${measured.map(({ a, b }) => (b.rps / a.rps).toFixed(2)).join(', ')}) | ${(mean(({ replicaShare }) => replicaShare) * 100).toFixed(0)}% |`,
    );
  }
} finally {
  for (const child of started) child.kill('SIGTERM');
  await standby.remove();
  await primary.stop();
  await rm(standbyDir, { recursive: true, force: true });
}

interface Run {
  rps: number;
  cpu?: number;
}

async function load(port: number, next: () => BenchRequest, duration: number): Promise<Run> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: connections / 2,
    duration,
    requests: [asRequest(next)],
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx answers and ${result.errors} errors on port ${port}`);
  return { rps: result.requests.average };
}

/** The service's reads by target so far (its /metrics). */
async function replicaReads(port: number): Promise<{ replica: number; total: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  let replica = 0;
  let total = 0;
  for (const [, target, value] of text.matchAll(/^db_reads_total\{target="([^"]+)"\} (\d+)/gm)) {
    total += Number(value);
    if (target.startsWith('replica')) replica += Number(value);
  }
  return { replica, total };
}
