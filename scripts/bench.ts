import 'reflect-metadata';
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { mintToken } from '../src/auth/token-minter.js';
import { freePort, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { createLogger } from '../src/logger.js';
import { START_FLAGS } from '../src/v8-flags.js';
import { cpuMillis, JWT_SECRET, LIMITS_HIGH, peakRss, ready, TRACED } from './bench-support.js';
import type { SeedTree } from './seed.js';
import {
  asRequest,
  benchScenarios,
  byDocumentId,
  deepParentsOf,
  quantile,
  roundRobin,
  sequentialLatencies,
  trustedPolicyDocument,
  typeahead,
  type BenchRequest,
} from './bench-scenarios.js';
import { summarizeCpuProfile } from './cpu-profile-summary.js';
import {
  policyFromDatabase,
  postgraphilePolicyBody,
  preparePostgraphile,
  startPostgraphile,
  verifyPostgraphile,
} from './bench-postgraphile.js';

/**
 * `npm run bench [-- --data-dir DIR --connections 32 --duration 10]`: loads the service and the
 * hand-written baseline (scripts/bench-baseline.ts) with autocannon, one after the other on the
 * same seeded database, and prints req/s, latency, errors and the service/baseline ratio.
 * Without --data-dir it seeds a fresh temporary database (--orgs, --policies, --depth).
 * All servers run compiled (npm run build) in processes of their own, one process each:
 * - the table of issue 14: each read on the baseline, the service with every limit of spec
 *   section 12 on (set too high to trigger) and metrics on, the service with the limits off,
 *   PostGraphile 4.14 (bench-postgraphile.ts) for the GraphQL read, and the GraphQL read by
 *   trusted document id; warmed up, two rounds;
 * - the service with the limits on and off, on fresh pairs of processes, read by read, the
 *   trusted document included (the cost of the limits; also in `--table`; `--only limits` alone);
 * - a cancellation then its reinstatement on each of 1,000 fresh policies in turn, against REST
 *   POST policy on the same service (contract section 14; `--only cancel` runs only this);
 * - the service with its default limits, one caller flooding it while another reads (fairness);
 * - the service with tracing on (OTLP to a local receiver; sampling nothing, the default and
 *   every request: TRACED) and its metrics scraped, against tracing off, on fresh pairs
 *   (`--only observability` runs only this); the table has the same tracing settings as rows of
 *   its own, against the service.
 * `--against DIR` compares this build with another checkout's instead, read by read (and the
 * creates when both know the same migrations).
 * `--node PATH` compares runtimes instead (issue 21): the same build (this one, or --against's)
 * on the Node running the bench against the Node at PATH, on fresh pairs, read by read.
 */
const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    connections: { type: 'string', default: '32' },
    duration: { type: 'string', default: '10' },
    orgs: { type: 'string', default: '2000' },
    policies: { type: 'string', default: '20000' },
    depth: { type: 'string', default: '20' },
    // Another checkout of the service (e.g. `git worktree add ../before <commit>`, then
    // `npm ci` there): its build is compared with this one, pair by pair, instead of the
    // limits and fairness sections.
    against: { type: 'string' },
    // Only the scenarios whose name contains this text, against the baseline, and nothing
    // else (e.g. `--only 'policy list'` for the subtree pages on a big seed); with --against,
    // only those scenarios, this build against the other.
    only: { type: 'string' },
    // A CPU profile of the service under one scenario of the table (its exact name), instead of
    // the benchmark: where the time goes, by package and by function (docs/benchmark.md).
    profile: { type: 'string' },
    // With --profile: profile the service with the limits off instead (all 0), to compare the two profiles.
    'limits-off': { type: 'boolean', default: false },
    // The table (issue 14) and the limits' cost on fresh pairs (issue 37), without the webhook,
    // lifecycle, fairness and observability sections. `--only limits` runs the limits' pairs alone.
    table: { type: 'boolean', default: false },
    // Only the tracing settings (TRACED, bench-support.ts) whose label contains this text, in the
    // table and the observability section (e.g. `--only observability --sampler every`).
    sampler: { type: 'string' },
    // Rounds of each pair compared (observability, --against, --node, --v8-flags).
    rounds: { type: 'string', default: '6' },
    // Another Node binary (e.g. /usr/bin/node, the machine's Node 20): the build (--against's when
    // given, since this build refuses a Node older than 24) on it against the same build on the
    // Node running the bench, on fresh pairs, instead of the limits and fairness sections.
    node: { type: 'string' },
    // V8 flags (e.g. V8's defaults for those of src/v8-flags.ts: '--max-semi-space-size=0
    // --heap-growing-percent=0 --maglev'): the service as npm start runs it against the same
    // build with these after its own, on fresh pairs, with each side's peak RSS.
    'v8-flags': { type: 'string' },
  },
});
const connections = Number(values.connections);
const duration = Number(values.duration);

const dataDir = resolve(values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'org-policy-bench-')));
run('npm', ['run', 'build', '--silent']);
const against = values.against ? resolve(values.against) : null;
if (against) run('npm', ['run', 'build', '--silent'], {}, against);
if (!existsSync(join(dataDir, 'seed.json'))) {
  console.log(`seeding ${dataDir} ...`);
  run('node', ['dist/scripts/seed.js', '--orgs', values.orgs, '--policies', values.policies, '--depth', values.depth], {
    DATA_DIR: dataDir,
  });
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
  // The benchmark's webhook receiver listens on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  // One process per server, as the baseline is: the ratios compare code, not how many cores
  // each uses (WEB_CONCURRENCY's default would fork a worker per core); the cluster is measured on its own.
  WEB_CONCURRENCY: '1',
  // Every load generator here connects from 127.0.0.1 and stands for many callers (the flood
  // section's flooder holds 128 connections beside its victim): the per-address cap is not
  // what is measured.
  MAX_CONNECTIONS_PER_ADDRESS: '1000',
};
const LIMITS_OFF = Object.fromEntries(Object.keys(LIMITS_HIGH).map((name) => [name, '0']));
// The same read as a trusted document (GRAPHQL_TRUSTED_DOCUMENTS; bench-scenarios.ts).
const trusted = trustedPolicyDocument();
const manifestPath = join(mkdtempSync(join(tmpdir(), 'org-policy-bench-manifest-')), 'persisted-documents.json');
writeFileSync(manifestPath, JSON.stringify({ [trusted.id]: trusted.text }));
/** The service as the table measures it: the manifest loaded (metrics are always on). */
const WITH_MANIFEST = { GRAPHQL_TRUSTED_DOCUMENTS: manifestPath };
/** The service as `npm start` runs it: with V8's settings that must be on the command line (src/v8-flags.ts). */
const SERVICE = [...START_FLAGS, 'dist/src/main.js'];
const defaultsPort = await freePort();
const unprotectedPort = await freePort();
const postgraphilePort = await freePort();
// The same on every core (WEB_CONCURRENCY's default), against the baseline on as many processes.
const CORES = availableParallelism();
const clusterPort = await freePort();
const baselineClusterPort = await freePort();
const service = spawn('node', SERVICE, { env: { ...env, ...WITH_MANIFEST, ...LIMITS_HIGH, PORT: String(servicePort) }, stdio: 'ignore' });
const defaults = spawn('node', SERVICE, {
  env: { ...env, ...WITH_MANIFEST, MIGRATE_ON_START: 'false', PORT: String(defaultsPort) },
  stdio: 'ignore',
});
const baseline = spawn('node', ['dist/scripts/bench-baseline.js'], { env: { ...env, PORT: String(baselinePort) }, stdio: 'ignore' });
const baselineCluster = spawn('node', ['dist/scripts/bench-baseline.js'], {
  env: { ...env, BASELINE_WORKERS: String(CORES), PORT: String(baselineClusterPort) },
  stdio: 'ignore',
});
// Tracing on (spec section 13): OTLP over HTTP (the SDK's default, http/protobuf) to a receiver in
// this process that counts and drops what it gets; sampling nothing, the default and every request.
let exports = 0;
const collector = createServer((req, res) =>
  req.resume().on('end', () => ((exports += 1), res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end())),
);
await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
const TRACING = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as { port: number }).port}` };
// Started once the service has migrated the database, one process per sampler (TRACED, bench-support.ts).
const tracedSettings = TRACED.filter(({ label }) => !values.sampler || label.includes(values.sampler));
const tracedServers = await Promise.all(
  tracedSettings.map(async (setting) => ({ ...setting, port: await freePort(), child: undefined as ChildProcess | undefined })),
);
let unprotected: ChildProcess | undefined;
let serviceCluster: ChildProcess | undefined;
let postgraphile: ChildProcess | undefined;

try {
  await ready(servicePort); // it applies the migrations the others then find
  unprotected = spawn('node', SERVICE, {
    env: { ...env, ...WITH_MANIFEST, ...LIMITS_OFF, MIGRATE_ON_START: 'false', PORT: String(unprotectedPort) },
    stdio: 'ignore',
  });
  for (const traced of tracedServers) {
    traced.child = spawn('node', SERVICE, {
      env: {
        ...env,
        ...WITH_MANIFEST,
        ...LIMITS_HIGH,
        ...TRACING,
        ...traced.sampler,
        MIGRATE_ON_START: 'false',
        PORT: String(traced.port),
      },
      stdio: 'ignore',
    });
  }
  serviceCluster = spawn('node', SERVICE, {
    env: { ...env, ...WITH_MANIFEST, ...LIMITS_HIGH, WEB_CONCURRENCY: String(CORES), MIGRATE_ON_START: 'false', PORT: String(clusterPort) },
    stdio: 'ignore',
  });
  await Promise.all([
    ready(defaultsPort),
    ready(baselinePort),
    ready(unprotectedPort),
    ...tracedServers.map(({ port }) => ready(port)),
    ready(clusterPort),
    ready(baselineClusterPort),
  ]);
  // Every request reads a policy or organization at the deepest level (depth 20) of a tree,
  // as its root's owner acting for the root: the access check walks the whole path.
  const trees = seed.trees.filter((tree) => tree.deepPolicies.length > 0);
  // The parent of a deepest organization: a small subtree 19 levels down (two levels).
  const deepParents = await deepParentsOf(database.url, trees);
  const tokens = await Promise.all(
    trees.map((tree) => mintToken(new TextEncoder().encode(JWT_SECRET), { sub: tree.ownerSub, org: tree.rootId, expiresIn: 3600 })),
  );
  const pick = roundRobin(trees, tokens);
  const scenarios = benchScenarios(pick, deepParents);

  // PostGraphile 4.14 (scripts/bench-postgraphile.ts) on the same data, under row-level security
  // carrying the same rule, proven to answer right (the owner sees the policy, another tree's
  // owner does not, a forged token is refused) before it is timed.
  // Only when a run compares with it (`--only typeahead` does not; a seed of one big tree has no
  // second tree's deep policy to prove the denial with).
  if (!values.only || 'GraphQL policy query'.includes(values.only)) {
    await preparePostgraphile(database.url);
    postgraphile = startPostgraphile({ DATABASE_URL: database.url, JWT_SECRET, PORT: String(postgraphilePort) });
    await ready(postgraphilePort);
    const probe = trees[0].deepPolicies[0];
    await verifyPostgraphile(postgraphilePort, {
      allowedToken: tokens[0],
      deniedToken: tokens[1],
      number: probe,
      expected: await policyFromDatabase(database.url, probe),
    });
  }

  // The table of issue 14: each read on the baseline, the service with every protection on
  // (the limits of spec section 12 too high to trigger, metrics), the same with the limits off,
  // and PostGraphile; the GraphQL read also by trusted document id. Each server is warmed up as
  // long as it is measured... twice: 5 s of load, then 10 s measured. Two rounds, the servers'
  // order reversed in the second; req/s and latency are the rounds' means.
  const graphqlRead = scenarios.find(([name]) => name === 'GraphQL policy query')![1];
  const byTrustedId = byDocumentId(pick, trusted.id);
  const postgraphileRead = () => {
    const p = pick();
    return { method: 'POST', path: '/graphql', token: p.token, body: postgraphilePolicyBody(p.number) };
  };
  type Target = {
    label: string;
    port: number;
    next: () => { method: string; path: string; token: string; body?: string };
    against?: string;
  };
  // Tracing on, against the same service with it off (the row's 'service'): reads only.
  const withTracing = (name: string, next: Target['next']): Target[] =>
    name.includes('POST')
      ? []
      : tracedServers.map(({ label, port }) => ({ label: `service, tracing on, ${label}`, port, next, against: 'service' }));
  const onEveryCore = (next: Target['next']): Target[] => [
    { label: `baseline, ${CORES} processes`, port: baselineClusterPort, next },
    { label: `service, ${CORES} processes`, port: clusterPort, next, against: `baseline, ${CORES} processes` },
  ];
  const table: Array<{ name: string; targets: Target[] }> = [
    ...scenarios
      .filter(([name]) => !name.includes('list'))
      .map(([name, next]) => ({
        name,
        targets: [
          { label: 'baseline', port: baselinePort, next },
          { label: 'service', port: servicePort, next },
          { label: 'service, limits off', port: unprotectedPort, next },
          ...(name === 'GraphQL policy query' ? [{ label: 'PostGraphile', port: postgraphilePort, next: postgraphileRead }] : []),
          ...withTracing(name, next),
          ...onEveryCore(next),
        ],
      })),
    {
      name: 'GraphQL policy query, trusted document id',
      targets: [
        { label: 'baseline', port: baselinePort, next: graphqlRead },
        { label: 'service', port: servicePort, next: byTrustedId },
        { label: 'service, limits off', port: unprotectedPort, next: byTrustedId },
        ...withTracing('trusted document', byTrustedId),
        ...onEveryCore(graphqlRead).map((target) => (target.label.startsWith('service') ? { ...target, next: byTrustedId } : target)),
      ],
    },
  ];
  if (values.profile) {
    // A scenario of the table (the trusted document row included), or a list page.
    const row = table.find(({ name }) => name === values.profile);
    const next = row?.targets.find(({ label }) => label === 'service')!.next ?? scenarios.find(([name]) => name === values.profile)?.[1];
    if (!next)
      throw new Error(
        `--profile takes a scenario: ${[...new Set([...table.map(({ name }) => name), ...scenarios.map(([name]) => name)])].join(', ')}`,
      );
    const directory = mkdtempSync(join(tmpdir(), 'org-policy-profile-'));
    const port = await freePort();
    const started = performance.now();
    const profiled = spawn('node', ['--cpu-prof', `--cpu-prof-dir=${directory}`, ...SERVICE], {
      env: {
        ...env,
        ...WITH_MANIFEST,
        ...(values['limits-off'] ? LIMITS_OFF : LIMITS_HIGH),
        MIGRATE_ON_START: 'false',
        PORT: String(port),
      },
      stdio: 'ignore',
    });
    await ready(port);
    await load(port, next, connections, { duration: 5 });
    const warmedUp = performance.now() - started;
    const measured = await load(port, next);
    await stop(profiled);
    const file = readdirSync(directory).find((name) => name.endsWith('.cpuprofile'))!;
    const summary = summarizeCpuProfile(join(directory, file), { sinceMs: warmedUp });
    const cpuPerRequest = summary.busyMs / (measured.rps * duration);
    console.log(
      `\n${values.profile}: ${fmt(measured)}; ${(cpuPerRequest * 1000).toFixed(0)} µs of the service's CPU per request (profile: ${join(directory, file)})\n`,
    );
    console.log('| share of CPU | where (self time) |\n|---|---|');
    for (const { origin, share } of summary.byOrigin) console.log(`| ${(share * 100).toFixed(1)}% | ${origin} |`);
    console.log('\n| share of CPU | function |\n|---|---|');
    for (const { name, share } of summary.byFunction) console.log(`| ${(share * 100).toFixed(1)}% | ${name} |`);
  }
  /** The processes of the server on `port` (a cluster's primary and its workers). */
  const serverPids = (port: number): number[] => {
    const child = new Map<number, ChildProcess | undefined>([
      [baselinePort, baseline],
      [servicePort, service],
      [unprotectedPort, unprotected],
      [postgraphilePort, postgraphile],
      ...tracedServers.map(({ port, child }) => [port, child] as const),
      [clusterPort, serviceCluster],
      [baselineClusterPort, baselineCluster],
    ]).get(port);
    return child?.pid === undefined ? [] : [child.pid, ...childrenOf(child.pid)];
  };
  const rows: string[] = [];
  const peerRows: string[] = [];
  // --profile and --node measure something else than the table.
  const measureTable = !values.profile && !values.node && !values['v8-flags'] && !against;
  for (const { name, targets } of table.filter(({ name }) => measureTable && (!values.only || name.includes(values.only)))) {
    const runs = new Map<string, Measured[]>(targets.map(({ label }) => [label, []]));
    for (const round of [0, 1]) {
      for (const { label, port, next } of round === 0 ? targets : [...targets].reverse()) {
        await load(port, next, connections, { duration: 5 });
        // The server's own CPU (all its processes) over the measured load, per request answered.
        const pids = serverPids(port);
        const before = pids.reduce((sum, pid) => sum + cpuMillis(pid), 0);
        const run = await load(port, next);
        const used = pids.reduce((sum, pid) => sum + cpuMillis(pid), 0) - before;
        runs.get(label)!.push({ ...run, cpu: (used * 1000) / Math.max(1, run.rps * duration) });
      }
    }
    const base = mean(runs.get('baseline')!);
    for (const { label, against = 'baseline' } of targets) {
      const measured = runs.get(label)!;
      const reference = runs.get(against)!;
      const ratios = measured.map((run, index) => run.rps / reference[index].rps);
      const cpuRatio = (mean(measured).cpu ?? 0) / (mean(reference).cpu ?? 1);
      const ratio = label.startsWith('baseline')
        ? '1.00x'
        : `**${(mean(measured).rps / mean(reference).rps).toFixed(2)}x** (${ratios.map((r) => r.toFixed(2)).join(', ')}); CPU ${cpuRatio.toFixed(2)}x`;
      peerRows.push(`| ${name} | ${label} | ${fmt(mean(measured))} | ${ratio} |`);
      console.log(peerRows.at(-1));
    }
    const service = mean(runs.get('service')!);
    rows.push(`| ${name} | ${fmt(service)} | ${fmt(base)} | **${(service.rps / base.rps).toFixed(2)}x** |`);
    const peer = runs.get('PostGraphile');
    if (peer) {
      const ratio = service.rps / mean(peer).rps;
      peerRows.push(
        `| ${name} | service / PostGraphile | | **${ratio.toFixed(2)}x** (${runs
          .get('service')!
          .map((run, index) => (run.rps / peer[index].rps).toFixed(2))
          .join(', ')}) |`,
      );
      console.log(peerRows.at(-1));
    }
  }
  if (measureTable) {
    const processRss = [
      ['service', service],
      ['service, limits off', unprotected],
      ...tracedServers.map(({ label, child }) => [`service, tracing on, ${label}`, child]),
      ['PostGraphile', postgraphile],
      ['baseline', baseline],
    ]
      .filter(([, child]) => child !== undefined)
      .map(([label, child]) => `${label} ${peakRss((child as ChildProcess).pid!)} MB`);
    const workers = childrenOf(serviceCluster.pid!).map((pid) => peakRss(pid));
    processRss.push(`service on ${CORES} processes: primary ${peakRss(serviceCluster.pid!)} MB, workers ${workers.join(' and ')} MB`);
    console.log(
      `\n| scenario | server | req/s, p50/p99 ms, errors, non-2xx, CPU per request | against the baseline (each round); CPU per request against it |\n|---|---|---|---|\n${peerRows.join('\n')}`,
    );
    console.log(`\nPeak RSS: ${processRss.join(', ')}; OTLP exports received: ${exports}\n`);
  }

  // Creates with one webhook endpoint on every tree (spec section 11): their throughput against
  // the plain creates measured above, and whether delivery keeps up (the queue of pending
  // deliveries, sampled during the run, does not grow).
  const withoutEndpoint = values.table ? undefined : rows.find((row) => row.startsWith('| REST POST policy |'));
  if (withoutEndpoint) {
    const post = scenarios.find(([name]) => name === 'REST POST policy')![1];
    const hooks = createServer((req, res) => req.resume().on('end', () => res.end())).listen(0, '127.0.0.1');
    await new Promise((resolve) => hooks.once('listening', resolve));
    const hooksUrl = `http://127.0.0.1:${(hooks.address() as { port: number }).port}/`;
    // Deleted after the run: a kept --data-dir would otherwise gather endpoints whose receiver is
    // gone, and the next runs would spend their CPU retrying deliveries to them.
    const endpoints: Array<{ id: string; token: string }> = [];
    // And what an earlier run left (one that stopped before its clean-up) is cleared first.
    const clearing = new pg.Client({ connectionString: database.url });
    await clearing.connect();
    await clearing.query(`update webhook_endpoint set deleted_at = now() where deleted_at is null`);
    await clearing.query(
      `update webhook_delivery set status = 'failed', last_error = 'left by an earlier benchmark run' where status = 'pending'`,
    );
    // Their queued attempts too (pg-boss's table): workers would spend the run skipping them.
    await clearing.query(`delete from pgboss.job where name = 'webhook-delivery' and state in ('created', 'retry')`);
    await clearing.end();
    for (const [index, tree] of trees.entries()) {
      const response = await fetch(`http://127.0.0.1:${servicePort}/api/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[index]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: hooksUrl, organizationId: tree.rootId, events: ['policy.created'] }),
      });
      if (!response.ok) throw new Error(`could not register a webhook endpoint: ${response.status} ${await response.text()}`);
      endpoints.push({ id: ((await response.json()) as { id: string }).id, token: tokens[index] });
    }
    const queue = new pg.Client({ connectionString: database.url });
    await queue.connect();
    const pending = async () => Number((await queue.query(`select count(*) from webhook_delivery where status = 'pending'`)).rows[0].count);
    const depths: number[] = [await pending()];
    const sampler = setInterval(() => void pending().then((depth) => depths.push(depth)), 1000);
    const withEndpoint = await load(servicePort, post);
    clearInterval(sampler);
    depths.push(await pending());
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = await pending();
    const delivered = Number((await queue.query(`select count(*) from webhook_delivery where status = 'delivered'`)).rows[0].count);
    for (const { id, token } of endpoints) {
      await fetch(`http://127.0.0.1:${servicePort}/api/v1/webhook-endpoints/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
    }
    await queue.end();
    hooks.close();
    const plainRps = Number(/^\| REST POST policy \| (\d+),/.exec(withoutEndpoint)![1]);
    rows.push(
      `| REST POST policy with one webhook endpoint | ${fmt(withEndpoint)} | (the same run without an endpoint: ${plainRps} req/s) | **${(withEndpoint.rps / plainRps).toFixed(2)}x** of the plain creates |`,
    );
    console.log(rows.at(-1));
    console.log(
      `pending deliveries, sampled each second during the run: ${depths.join(', ')}; 3 s after: ${after}; delivered: ${delivered}`,
    );
  }

  /** `count` new one-year policies from today (32 created at a time), each with its tree's token. */
  const freshPolicies = async (count: number, lastname: string): Promise<Array<{ number: number; token: string }>> => {
    const today = new Date().toISOString().slice(0, 10);
    const inDays = (days: number) => new Date(Date.parse(today) + days * 86_400_000).toISOString().slice(0, 10);
    const pool: Array<{ number: number; token: string }> = [];
    while (pool.length < count) {
      pool.push(
        ...(await Promise.all(
          Array.from({ length: 32 }, async () => {
            const p = pick();
            const body = {
              organizationId: p.org,
              ownerFirstname: 'Bench',
              ownerLastname: lastname,
              petName: 'Rex',
              effectiveDate: today,
              expirationDate: inDays(365),
              coverageSlug: 'accident-illness-plus',
            };
            const response = await fetch(`http://127.0.0.1:${servicePort}/api/v1/policy`, {
              method: 'POST',
              headers: { authorization: `Bearer ${p.token}`, 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
            if (!response.ok) throw new Error(`could not create a policy for the bench: ${response.status} ${await response.text()}`);
            return { number: ((await response.json()) as { number: number }).number, token: p.token };
          }),
        )),
      );
    }
    return pool;
  };

  /** `next` against `base` (REST POST policy) on the same service, in two alternating rounds (warmed up 5 s each). */
  const againstCreates = async (
    name: string,
    next: () => BenchRequest,
    before: () => Promise<void> = async () => {},
    base = 'REST POST policy',
  ) => {
    const post = scenarios.find(([scenario]) => scenario === base)![1];
    const runs: Record<'post' | 'next', Measured[]> = { post: [], next: [] };
    for (const round of [0, 1]) {
      for (const label of round === 0 ? (['post', 'next'] as const) : (['next', 'post'] as const)) {
        const run = label === 'post' ? post : next;
        if (label === 'next') await before();
        await load(servicePort, run, connections, { duration: 5 });
        if (label === 'next') await before();
        runs[label].push(await load(servicePort, run));
      }
    }
    const [posts, nexts] = [mean(runs.post), mean(runs.next)];
    const ratios = runs.next.map((run, index) => (run.rps / runs.post[index].rps).toFixed(2));
    rows.push(
      `| ${name} | ${fmt(nexts)} | (${base}, the same service, alternating rounds: ${fmt(posts)}) | **${(nexts.rps / posts.rps).toFixed(2)}x** of it (${ratios.join(', ')}) |`,
    );
    console.log(rows.at(-1));
  };

  // The life of a policy (contract section 14): a cancellation, then its reinstatement, on each
  // of a pool of fresh policies in turn, against REST POST policy on the same service, in
  // alternating rounds. The pool is large enough that a policy's next step is sent long after
  // its last one was answered (32 in flight, 1,000 policies), so every request is a valid step;
  // the cancellation is a month ahead, so it can always be reinstated. Each cycle adds two dozen
  // charges to a one-year ledger: a pool of 1,000 stays far below MAX_LEDGER_CHARGES.
  const LIFECYCLE = 'REST cancel then reinstate';
  if (measureTable && !values.table && (!values.only || LIFECYCLE.includes(values.only))) {
    const today = new Date().toISOString().slice(0, 10);
    const inDays = (days: number) => new Date(Date.parse(today) + days * 86_400_000).toISOString().slice(0, 10);
    const pool = await freshPolicies(1000, 'Cycle');
    // Each policy's next step is the other one: a cancellation when none is in force, else its
    // reinstatement. Read from the database before each run, since a run's last requests may be
    // cut off unanswered, written or not: once the service has finished them (a second is many
    // times the p99).
    const cancelled = new Map<number, boolean>();
    const states = new pg.Client({ connectionString: database.url });
    await states.connect();
    const readStates = async () => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const { rows } = await states.query<{ number: number; cancelled: boolean }>(
        `select p.number::int as number, coalesce((select t.type = 'cancellation' from policy_transaction t
           where t.policy_id = p.id and t.type in ('cancellation', 'reinstatement') order by t.seq desc limit 1), false) as cancelled
         from policy p where p.number = any($1::bigint[])`,
        [pool.map(({ number }) => number)],
      );
      for (const row of rows) cancelled.set(row.number, row.cancelled);
    };
    let step = 0;
    const cycle = () => {
      const { number, token } = pool[step++ % pool.length];
      const inForce = cancelled.get(number)!;
      cancelled.set(number, !inForce);
      return inForce
        ? { method: 'POST', path: `/api/v1/policy/${number}/reinstatement`, token, body: '{}' }
        : {
            method: 'POST',
            path: `/api/v1/policy/${number}/cancellation`,
            token,
            body: JSON.stringify({ effectiveDate: inDays(30), reason: 'insured_request' }),
          };
    };
    await againstCreates(LIFECYCLE, cycle, readStates);
    await states.end();
  }

  // Contract section 19: a payment on each of a pool of fresh policies in turn (each with a
  // reference of its own, as a provider's ids are), against REST POST policy on the same service,
  // in alternating rounds. A payment is posted as a transaction is (the policy's row locked, the
  // state and the event written): the issue asks for at least half the creates' rate.
  const PAYMENTS = 'REST POST payment';
  if (measureTable && !values.table && (!values.only || PAYMENTS.includes(values.only))) {
    const pool = await freshPolicies(1000, 'Payer');
    let paid = 0;
    const payment = () => {
      const { number, token } = pool[paid % pool.length];
      return {
        method: 'POST',
        path: `/api/v1/policy/${number}/payments`,
        token,
        body: JSON.stringify({ amount: 4200, reference: `bench-${process.pid}-${paid++}` }),
      };
    };
    await againstCreates(PAYMENTS, payment);
  }

  // Contract section 20: the same read as REST GET policy, authenticated by an API key (one per
  // tree, policies:read) instead of a JWT, in alternating rounds on the same service. A key costs
  // an HMAC per request and one lookup per key per second (auth/api-key-verifier.ts).
  const KEY_READS = 'REST GET policy (API key)';
  if (measureTable && !values.table && (!values.only || KEY_READS.includes(values.only))) {
    const keyOf = new Map<string, string>();
    for (const [index, tree] of trees.entries()) {
      const response = await fetch(`http://127.0.0.1:${servicePort}/api/v1/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[index]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench', scopes: ['policies:read'] }),
      });
      if (!response.ok) throw new Error(`could not make an API key for the bench: ${response.status} ${await response.text()}`);
      keyOf.set(tree.rootId, ((await response.json()) as { key: string }).key);
    }
    const read = scenarios.find(([scenario]) => scenario === 'REST GET policy')![1];
    const byKey = () => {
      const request = read();
      const tree = trees[tokens.indexOf(request.token)];
      return { ...request, token: keyOf.get(tree.rootId)! };
    };
    await againstCreates(KEY_READS, byKey, undefined, 'REST GET policy');
  }

  // Contract section 23: a typeahead, one request per keystroke (bench-scenarios.ts, TYPED_QUERIES:
  // GraphQL searchPolicies, first 10, what a dropdown shows), as the first tree's owner acting for its root (on the seed of docs/benchmark.md, 950,010
  // policies in reach). One request at a time, as one person types: the goal is p95 under 50 ms.
  // Then with `connections` typing at once, throughput and latency under load.
  const TYPEAHEAD = 'GraphQL typeahead search';
  if (measureTable && !values.table && (!values.only || TYPEAHEAD.includes(values.only))) {
    const next = typeahead(tokens[0]);
    await load(servicePort, next, connections, { duration: 3 });
    const alone = (await sequentialLatencies(servicePort, next, duration)).map((micros) => micros / 1000);
    const loaded = await load(servicePort, next);
    const ms = (share: number) => quantile(alone, share).toFixed(1);
    console.log(
      `\n${TYPEAHEAD} (${trees[0].ownerSub} for its root; ${alone.length} queries of 2-6 letters one at a time): ` +
        `p50 ${ms(0.5)} ms, p95 ${ms(0.95)} ms, p99 ${ms(0.99)} ms (goal: p95 under 50 ms); ` +
        `${connections} at once: req/s, p50/p99 ms, errors, non-2xx: ${fmt(loaded)}`,
    );
  }

  const observabilityOnly = values.only !== undefined && 'observability'.includes(values.only);
  const limitsOnly = values.only !== undefined && 'limits'.includes(values.only);
  if (values.profile) {
    // The profile is all this run was for.
  } else if (!values.table && !limitsOnly && values.only && !observabilityOnly && !against) {
    console.log(`\nDataset: ${JSON.stringify(seed.summary)}; service peak RSS ${peakRss(service.pid!)} MB`);
  } else {
    // The cost of the limits, three ways. (1) In this process, the limits' own work per request:
    // repeatable. (2) The same reads on two processes, limits on (too high to trigger) and off,
    // each round a fresh pair loaded at the same time with half the connections each, so that
    // whatever else the machine does falls on both alike; the ratio is the median of the rounds'.
    // (3) The same with both processes off, the control: how far two processes of the same code
    // differ here. Besides throughput, the CPU time per answered request (from /proc).
    const ownWork = JSON.parse(
      spawnSync('node', ['dist/scripts/bench-limits.js'], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } }).stdout,
    ) as {
      on: number;
      off: number;
    };
    /** One round of a pair: at saturation, and (when asked) one request at a time on each, for latency (µs). */
    type Round = { a: Measured; b: Measured; aCpu: number; bCpu: number; latency?: [number[], number[]] };
    const pairRounds = Number(values.rounds);
    // The pair's ports while it runs (the observability rows scrape their /metrics).
    const scrapedPorts = new Set<number>();
    // Each side's highest peak RSS over the pairs compared so far (MB).
    const peaks = [0, 0];
    const comparePair = async (
      configs: [Record<string, string>, Record<string, string>],
      reads: typeof scenarios,
      count: number,
      commands: [string[], string[]] = [SERVICE, SERVICE],
      nodes: [string, string] = ['node', 'node'],
      sequential = false,
    ) => {
      const rounds = new Map<string, Round[]>(reads.map(([name]) => [name, []]));
      for (let round = 0; round < count; round++) {
        // Which of the two starts first alternates, in case starting first matters.
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        const started: Array<{ port: number; child: ChildProcess }> = [];
        for (const index of order) {
          const port = await freePort();
          const child = spawn(nodes[index], commands[index], {
            env: { ...env, ...WITH_MANIFEST, ...configs[index], MIGRATE_ON_START: 'false', PORT: String(port) },
            stdio: 'ignore',
          });
          await ready(port);
          started[index] = { port, child };
          scrapedPorts.add(port);
        }
        const pair = started;
        for (const [name, next] of reads) {
          await Promise.all(pair.map((server) => load(server.port, next, connections / 2, { duration: 3 })));
          const before = pair.map(({ child }) => cpuMillis(child.pid!));
          const [a, b] = await Promise.all(pair.map((server) => load(server.port, next, connections / 2)));
          const [aCpu, bCpu] = pair.map(({ child }, index) => (cpuMillis(child.pid!) - before[index]) / ([a, b][index].rps * duration));
          // Latency where nothing queues (at saturation a closed loop's latency is only connections
          // over throughput, and autocannon's overallRate sends each second's requests at once):
          // one request at a time on each side, both at once.
          const latency = sequential
            ? ((await Promise.all(pair.map((server) => sequentialLatencies(server.port, next, duration)))) as [number[], number[]])
            : undefined;
          rounds.get(name)!.push({ a, b, aCpu, bCpu, latency });
        }
        for (const [index, { child, port }] of pair.entries()) {
          scrapedPorts.delete(port);
          peaks[index] = Math.max(peaks[index], peakRss(child.pid!));
          await stop(child);
        }
      }
      return rounds;
    };
    const medianOf = (values: number[]) => {
      const sorted = [...values].sort((x, y) => x - y);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    };
    const compareRow = (name: string, measured: Round[]) => {
      const ratios = measured.map(({ a, b }) => a.rps / b.rps);
      const [aCpu, bCpu] = [medianOf(measured.map((round) => round.aCpu)), medianOf(measured.map((round) => round.bCpu))];
      const [a, b] = [mean(measured.map((round) => round.a)), mean(measured.map((round) => round.b))];
      const timed = measured.flatMap(({ latency }) => (latency ? [latency] : []));
      const ms = (µs: number) => (µs / 1000).toFixed(2);
      const of = (side: 0 | 1, share: number) => medianOf(timed.map((pair) => quantile(pair[side], share)));
      const added = timed.map(([x, y]) => quantile(x, 0.99) - quantile(y, 0.99));
      const latency = timed.length
        ? ` p50 ${ms(of(0, 0.5))} / ${ms(of(1, 0.5))} ms, p99 ${ms(of(0, 0.99))} / ${ms(of(1, 0.99))} ms; p99 added **${ms(medianOf(added))} ms** (${added.map(ms).join(', ')}) |`
        : '';
      return `| ${name} | ${fmt(a)} | ${fmt(b)} | **${medianOf(ratios).toFixed(2)}x** (${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}) | ${(aCpu * 1000).toFixed(0)} / ${(bCpu * 1000).toFixed(0)} µs: **${(bCpu / aCpu).toFixed(2)}x** |${latency}`;
    };
    /** Six rounds of two sides as a table: its columns named `columns`, its ratios `ratio[0] / ratio[1]`. */
    const printPairs = (title: string, columns: [string, string], ratio: [string, string], rounds: Map<string, Round[]>) => {
      console.log(`\n${title}, ${pairRounds} rounds, each on a fresh pair loaded at the same time with half the connections each:\n`);
      console.log(
        `| scenario | ${columns[0]} | ${columns[1]} | throughput ${ratio[0]} / ${ratio[1]} (each round) | CPU per request ${ratio[0]} / ${ratio[1]}: capacity |`,
      );
      console.log('|---|---|---|---|---|');
      console.log([...rounds.keys()].map((name) => compareRow(name, rounds.get(name)!)).join('\n'));
    };
    // Observability (spec section 13): tracing on, every request sampled, exporting OTLP
    // (http/protobuf, the SDK's default) to a receiver in this process that reads and drops it,
    // and /metrics scraped every 5 s, against tracing off, scraped alike.
    const observability = async (sampler: Record<string, string>) => {
      let exported = 0;
      const collector = createServer((req, res) =>
        req.resume().on('end', () => ((exported += 1), res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end())),
      );
      await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
      const METRICS_TOKEN = 'benchmark-metrics-token';
      const traced = {
        ...LIMITS_HIGH,
        ...sampler,
        METRICS_TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as { port: number }).port}`,
      };
      const untraced = { ...LIMITS_HIGH, METRICS_TOKEN };
      const scraper = setInterval(() => {
        for (const port of scrapedPorts)
          void fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
            .then((r) => r.text())
            .catch(() => undefined);
      }, 5000);
      const reads = scenarios.filter(([name]) => !name.includes('POST') && !name.includes('list'));
      const rounds = await comparePair([traced, untraced], reads, pairRounds, [SERVICE, SERVICE], ['node', 'node'], true);
      clearInterval(scraper);
      collector.close();
      return { rows: reads.map(([name]) => compareRow(name, rounds.get(name)!)), exported };
    };
    const allObservability = async () => {
      const results = [];
      for (const { label, sampler } of tracedSettings) results.push({ label, ...(await observability(sampler)) });
      return results;
    };
    const printObservability = (results: Array<{ label: string; rows: string[]; exported: number }>) => {
      const own = JSON.parse(spawnSync('node', ['dist/scripts/bench-metrics.js'], { encoding: 'utf8' }).stdout) as {
        request: number;
        operation: number;
      };
      console.log(
        `\nThe metrics' own work, in-process: ${own.request.toFixed(2)} µs to count and time a request, ${own.operation.toFixed(2)} µs to count a GraphQL operation.`,
      );
      const tracing = JSON.parse(spawnSync('node', ['dist/scripts/bench-tracing.js'], { encoding: 'utf8' }).stdout) as {
        unsampled: number;
      };
      console.log(
        `Tracing's work for a request it does not sample, in-process (the sampling decision, always_off): ${tracing.unsampled.toFixed(2)} µs.`,
      );
      for (const { label, rows: observed, exported } of results) {
        console.log(
          `\nTracing on (OTLP to a local receiver, ${label}; ${exported} exports received) and metrics scraped every 5 s, against tracing off (scraped alike), ${pairRounds} rounds, each on a fresh pair loaded at the same time with half the connections each:\n`,
        );
        console.log(
          '| read | tracing on: req/s, p50/p99 ms, errors, non-2xx | tracing off | throughput on / off (each round) | CPU per request on / off: capacity on / off | one request at a time on each: latency on / off (medians of the rounds; p99 added each round) |',
        );
        console.log('|---|---|---|---|---|---|');
        for (const row of observed) console.log(row);
      }
    };
    // The limits' cost (contract section 12: at most 5% of a read's throughput): the reads and the
    // trusted document with the limits on (too high to trigger) against off, on fresh pairs; the
    // control row, off against off, is the method's own noise. The table's sequential "limits off"
    // rows cannot tell 5% from the machine's drift; this is the measurement (docs/benchmark.md).
    const limitsCost = async () => {
      const reads: typeof scenarios = [
        ...scenarios.filter(([name]) => !name.includes('POST')),
        ['GraphQL policy query, trusted document id', byDocumentId(pick, trusted.id)],
      ];
      const limitRounds = await comparePair([LIMITS_HIGH, LIMITS_OFF], reads, pairRounds);
      const controlRounds = await comparePair([LIMITS_OFF, LIMITS_OFF], reads.slice(0, 1), pairRounds);
      const readCpu = medianOf(limitRounds.get(reads[0][0])!.map((round) => round.aCpu)) * 1000;
      const rows = [
        ...reads.map(([name]) => compareRow(name, limitRounds.get(name)!)),
        compareRow(`${reads[0][0]} (control: off against off)`, controlRounds.get(reads[0][0])!),
      ];
      return () => {
        console.log(
          `\nLimits of spec section 12 on (too high to trigger) against off, ${pairRounds} rounds, each on a fresh pair of processes loaded at the same time with half the connections each (means; the ratios are the medians of the rounds); the control row compares two processes with the limits off:\n`,
        );
        console.log(
          '| read | limits on: req/s, p50/p99 ms, errors, non-2xx | limits off | throughput on / off (each round) | CPU per request on / off: capacity on / off |',
        );
        console.log('|---|---|---|---|---|');
        for (const row of rows) console.log(row);
        console.log(
          `\nThe limits' own work, in-process: ${ownWork.on.toFixed(1)} µs a request with them on, ${ownWork.off.toFixed(1)} µs off: ` +
            `${(ownWork.on - ownWork.off).toFixed(1)} µs, ${((100 * (ownWork.on - ownWork.off)) / readCpu).toFixed(1)}% of the ${readCpu.toFixed(0)} µs of CPU a ${reads[0][0]} costs.`,
        );
      };
    };
    if (values.table || limitsOnly) {
      (await limitsCost())();
      console.log(`\nDataset: ${JSON.stringify(seed.summary)}; service peak RSS ${peakRss(service.pid!)} MB`);
    } else if (observabilityOnly) {
      printObservability(await allObservability());
    } else if (values.node) {
      // Runtimes (issue 21): one build on two Nodes, on fresh pairs loaded at the same time.
      const build = against ? join(against, 'dist/src/main.js') : 'dist/src/main.js';
      const other = values.node;
      const versions = [process.version, spawnSync(other, ['--version'], { encoding: 'utf8' }).stdout.trim()];
      const byRuntime = await comparePair(
        [LIMITS_HIGH, LIMITS_HIGH],
        scenarios.filter(([name]) => !name.includes('list')),
        pairRounds,
        [
          [...START_FLAGS, build],
          [...START_FLAGS, build],
        ],
        [process.execPath, other],
      );
      printPairs(
        `${build} on Node ${versions[0]} against the same on Node ${versions[1]}`,
        [versions[0], versions[1]],
        [versions[0], versions[1]],
        byRuntime,
      );
    } else if (values['v8-flags']) {
      // V8's settings (src/v8-flags.ts) against others given after them (V8 takes a flag's last
      // value; main.ts sets none the command line gives), same build, on fresh pairs.
      const flags = values['v8-flags'].split(/\s+/).filter(Boolean);
      const reads = scenarios.filter(([name]) => !name.includes('list'));
      const byFlags = await comparePair([LIMITS_HIGH, LIMITS_HIGH], reads, pairRounds, [
        SERVICE,
        [...START_FLAGS, ...flags, 'dist/src/main.js'],
      ]);
      printPairs(
        `The service as npm start runs it against the same with ${flags.join(' ')}`,
        ['as npm start runs it', 'with the flags'],
        ['as is', 'with the flags'],
        byFlags,
      );
      console.log(`\nPeak RSS: ${peaks.map((mb, index) => `${index === 0 ? 'as is' : 'with the flags'} ${mb} MB`).join(', ')}\n`);
    } else if (against) {
      // This build against another, on fresh pairs loaded at the same time (as for the limits),
      // on the database as this build migrated it. The other build's writes are compared only when
      // its migrations are the first of this build's: one from before a migration that changed
      // its tables writes rows its schema refuses, while tables added after it (issue 40's keys
      // and audit log) are only never written by it. A refused write would show in the table's
      // non-2xx column.
      const migrations = (root: string) =>
        readdirSync(join(root, 'src/database/migrations'))
          .filter((file) => file.startsWith('Migration'))
          .sort();
      const [ours, theirs] = [migrations('.'), migrations(against)];
      const sameSchema = theirs.every((name, index) => ours[index] === name) && addsTablesOnly(ours.slice(theirs.length));
      // Besides the table's scenarios, a status-filtered page (the baseline has none, so it is only
      // compared build against build): the status is judged from the stored state since issue 38.
      const statusPage: (typeof scenarios)[number] = [
        'REST GET policy list, root subtree, status active',
        () => {
          const p = pick();
          return {
            method: 'GET',
            path: `/api/v1/policy?organizationId=${p.tree.rootId}&includeDescendants=true&status=active&limit=20`,
            token: p.token,
          };
        },
      ];
      const compared = [...scenarios, statusPage].filter(
        ([name]) => (sameSchema || !name.includes('POST')) && (!values.only || name.includes(values.only)),
      );
      if (!sameSchema) console.log(`\n${against} predates this build's migrations: reads only.`);
      else if (theirs.length < ours.length)
        console.log(`\n${against} predates ${ours.length - theirs.length} migrations that only add tables: writes compared too.`);
      const builds = await comparePair([LIMITS_HIGH, LIMITS_HIGH], compared, pairRounds, [
        SERVICE,
        [...START_FLAGS, join(against, 'dist/src/main.js')],
      ]);
      printPairs(`This build against ${against}`, ['this build', 'the other build'], ['this', 'other'], builds);
    } else {
      const printLimits = await limitsCost();
      const observed = await allObservability();

      // Fairness: one caller reads at a steady 50 requests a second, alone, then while another
      // caller floods the service from a process of its own with 4x the connections (so that the
      // reader's measurement does not share the flood's event loop). The service runs its default
      // limits: 6,000 requests a minute and 16 in flight per caller; refusals wait a second.
      const [victimTree, flooderTree] = [trees[0], trees[1]];
      let turn = 0;
      const readPolicy = () => ({
        method: 'GET',
        path: `/api/v1/policy/${victimTree.deepPolicies[turn++ % victimTree.deepPolicies.length]}`,
        token: tokens[0],
      });
      const reader = { connections: 4, rate: 50, seconds: duration * 2 };
      // p99 of a thousand answers turns on a few of them: three runs, and the median ratio.
      const fairnessRuns: Array<{ alone: Measured; flooded: Measured; flood: Measured }> = [];
      for (let run = 0; run < 3; run++) {
        const alone = await load(defaultsPort, readPolicy, reader.connections, { overallRate: reader.rate, duration: reader.seconds });
        const flooder = spawn(
          'node_modules/.bin/autocannon',
          [
            '-j',
            '-c',
            String(connections * 4),
            '-d',
            String(reader.seconds),
            '-H',
            `authorization=Bearer ${tokens[1]}`,
            `http://127.0.0.1:${defaultsPort}/api/v1/policy/${flooderTree.deepPolicies[0]}`,
          ],
          { stdio: ['ignore', 'pipe', 'ignore'] },
        );
        let flooderOutput = '';
        flooder.stdout.on('data', (chunk) => (flooderOutput += chunk));
        const flooded = await load(defaultsPort, readPolicy, reader.connections, { overallRate: reader.rate, duration: reader.seconds });
        await new Promise((resolve) => flooder.once('exit', resolve));
        const result = JSON.parse(flooderOutput) as autocannon.Result;
        const flood = {
          rps: result.requests.average,
          p50: result.latency.p50,
          p90: result.latency.p90,
          p99: result.latency.p99,
          errors: result.errors,
          non2xx: result.non2xx,
        };
        fairnessRuns.push({ alone, flooded, flood });
        // The flooder's allowance resets with its window; the next run starts from a fresh one.
        if (run < 2) await new Promise((resolve) => setTimeout(resolve, 60_000 - ((2 * reader.seconds * 1000) % 60_000)));
      }
      const fairnessRatios = fairnessRuns.map(({ alone, flooded }) => flooded.p99 / alone.p99);
      const fairnessMedian = [...fairnessRatios].sort((a, b) => a - b)[1];
      const fairness = fairnessRuns.flatMap(({ alone, flooded, flood }, run) => [
        `| ${run + 1} | the reader alone (${reader.rate} req/s) | ${fmt(alone)} | ${alone.p90} |`,
        `| ${run + 1} | the reader during the flood | ${fmt(flooded)} | ${flooded.p90} |`,
        `| ${run + 1} | the flooder (${connections * 4} connections) | ${fmt(flood)} | ${flood.p90} |`,
      ]);
      console.log(fairness.join('\n'));

      const rss = peakRss(service.pid!);
      console.log(`\nDataset: ${JSON.stringify(seed.summary)}`);
      console.log(`autocannon: ${connections} connections, ${duration} s per run; service peak RSS ${rss} MB\n`);
      console.log('| scenario | service req/s, p50/p99 ms, errors, non-2xx | baseline req/s, p50/p99 ms, errors, non-2xx | ratio |');
      console.log('|---|---|---|---|');
      for (const row of rows) console.log(row);
      printLimits();
      console.log(
        `\nOne caller flooding, another reading (default limits); the reader's p99 during the flood is ${fairnessMedian.toFixed(2)}x its p99 alone (median of ${fairnessRatios.map((ratio) => ratio.toFixed(2)).join(', ')}):\n`,
      );
      console.log('| run | who | req/s, p50/p99 ms, errors, non-2xx | p90 ms |');
      console.log('|---|---|---|---|');
      for (const row of fairness) console.log(row);
      printObservability(observed);
    }
  }
} finally {
  for (const child of [
    service,
    defaults,
    baseline,
    unprotected,
    ...tracedServers.map((traced) => traced.child),
    postgraphile,
    serviceCluster,
    baselineCluster,
  ])
    if (child) await stop(child);
  collector.close();
  await database.stop();
}

interface Measured {
  rps: number;
  /** The server's CPU per request answered, in µs (the table's rows). */
  cpu?: number;
  p50: number;
  p90?: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(
  port: number,
  next: () => { method: string; path: string; token: string; body?: string },
  clients = connections,
  options: { overallRate?: number; duration?: number } = {},
): Promise<Measured> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: clients,
    duration: options.duration ?? duration,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [asRequest(next)],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

function mean(runs: Measured[]): Measured {
  const average = (pick: (m: Measured) => number) => runs.reduce((sum, m) => sum + pick(m), 0) / runs.length;
  return {
    rps: average((m) => m.rps),
    p50: Math.round(average((m) => m.p50)),
    p99: Math.round(average((m) => m.p99)),
    errors: average((m) => m.errors),
    non2xx: average((m) => m.non2xx),
    ...(runs.every((m) => m.cpu !== undefined) ? { cpu: average((m) => m.cpu ?? 0) } : {}),
  };
}

function fmt(m: Measured): string {
  return `${Math.round(m.rps)}, ${m.p50}/${m.p99}, ${m.errors}, ${m.non2xx}${m.cpu === undefined ? '' : `, ${Math.round(m.cpu)} µs`}`;
}

/** The processes whose parent is `pid` (a cluster's workers). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function run(command: string, args: string[], extraEnv: Record<string, string> = {}, cwd?: string): void {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd, env: { ...process.env, ...extraEnv } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
}

/**
 * Whether these migration files (of this build, after the other build's last) only add tables:
 * every table they alter, and every table they put a trigger on, is one they create. Read from
 * their text, so a migration that changes an existing table keeps the other build to reads.
 */
function addsTablesOnly(files: string[]): boolean {
  return files.every((file) => {
    const text = readFileSync(join('src/database/migrations', file), 'utf8');
    const created = [...text.matchAll(/create table (\w+)/gi)].map((match) => match[1]);
    const altered = [...text.matchAll(/alter table (\w+)|create trigger \w+\s+(?:before|after)[\w\s]+?\son (\w+)/gi)].map(
      (match) => match[1] ?? match[2],
    );
    return created.length > 0 && altered.every((table) => created.includes(table));
  });
}
