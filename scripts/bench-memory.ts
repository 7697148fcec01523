import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintToken } from '../src/auth/token-minter.js';
import { freePort, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { createLogger } from '../src/logger.js';
import { START_FLAGS } from '../src/v8-flags.js';
import { benchEnv, cpuMillis, JWT_SECRET, LIMITS_HIGH, peakRss, POLICY_QUERY, ready } from './bench-support.js';
import type { SeedTree } from './seed.js';
/**
 * `npm run bench:memory -- DATA_DIR` (a --data-dir the bench has seeded): one service process,
 * started as npm start starts it, with FLAGS after its own (e.g. FLAGS='--max-semi-space-size=16';
 * V8's defaults for those of src/v8-flags.ts: FLAGS='--max-semi-space-size=0 --heap-growing-percent=0 --maglev'),
 * loaded by C connections (32) for D seconds (15) on each read of KINDS (rest,graphql,org), with
 * its peak RSS and CPU per request; MEMLOG (a file) gets its V8 heap spaces twice a second.
 * How the flags of src/v8-flags.ts were chosen (docs/benchmark.md, "Memory on Node 24").
 */
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: npm run bench:memory -- DATA_DIR (seeded by npm run bench -- --data-dir DATA_DIR)');
const memlog = join(mkdtempSync(join(tmpdir(), 'org-policy-memory-')), 'memlog.mjs');
writeFileSync(
  memlog,
  `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';
const file = process.env.MEMLOG;
if (file) {
  writeFileSync(file, '');
  const mb = (bytes) => Math.round(bytes / 1e6);
  const status = () => Object.fromEntries([...readFileSync('/proc/self/status', 'utf8').matchAll(/^(RssAnon|RssFile|VmHWM):\\s+(\\d+)/gm)].map((m) => [m[1], Math.round(m[2] / 1024)]));
  setInterval(() => {
    const { rss, heapTotal, heapUsed, external } = process.memoryUsage();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, mb(s.space_size)]));
    appendFileSync(file, JSON.stringify({ rss: mb(rss), heapTotal: mb(heapTotal), heapUsed: mb(heapUsed), external: mb(external), ...spaces, ...status() }) + '\\n');
  }, 500).unref();
}
`,
);
const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8')) as { trees: SeedTree[] };
const database = await startEmbeddedPostgres(dataDir, createLogger('warn'));
const flags = (process.env.FLAGS ?? '').split(' ').filter(Boolean);
const port = await freePort();
// As npm start runs it (src/v8-flags.ts), then FLAGS, whose values win.
const child = spawn('node', [...START_FLAGS, ...flags, '--import', memlog, 'dist/src/main.js'], {
  env: {
    ...benchEnv(database.url),
    PORT: String(port),
    MEMLOG: process.env.MEMLOG ?? '',
    ...LIMITS_HIGH,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
await ready(port);
const trees = seed.trees.filter((t) => t.deepPolicies.length > 0);
const tokens = await Promise.all(
  trees.map((t) => mintToken(new TextEncoder().encode(JWT_SECRET), { sub: t.ownerSub, org: t.rootId, expiresIn: 3600 })),
);
let turn = 0;
const kinds = (process.env.KINDS ?? 'rest,graphql,org').split(',');
for (const kind of kinds) {
  const cpu0 = cpuMillis(child.pid!);
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: Number(process.env.C ?? 32),
    duration: Number(process.env.D ?? 15),
    requests: [
      {
        setupRequest: (req) => {
          const i = turn++ % trees.length;
          const t = trees[i];
          const number = t.deepPolicies[turn % t.deepPolicies.length];
          const headers = { authorization: `Bearer ${tokens[i]}`, 'content-type': 'application/json' };
          if (kind === 'rest') return { ...req, method: 'GET', path: `/api/v1/policy/${number}`, headers };
          if (kind === 'org') return { ...req, method: 'GET', path: `/api/v1/organization/${t.deepest[turn % t.deepest.length]}`, headers };
          return {
            ...req,
            method: 'POST',
            path: '/graphql',
            headers,
            body: JSON.stringify({ query: POLICY_QUERY, variables: { number } }),
          };
        },
      },
    ],
  });
  const used = cpuMillis(child.pid!) - cpu0;
  console.log(
    `${kind}: ${Math.round(r.requests.average)} req/s, p99 ${r.latency.p99}, non2xx ${r.non2xx}, errors ${r.errors}, cpu/req ${Math.round((used * 1000) / r.requests.total)} µs, peak RSS so far ${peakRss(child.pid!)} MB`,
  );
}
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
await database.stop();
