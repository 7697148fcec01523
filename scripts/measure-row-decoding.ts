import { readFileSync } from 'node:fs';
import pg from 'pg';
import { accessPredicate } from '../src/auth/access-rule.js';
import { Database } from '../src/database/database.js';
import { startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { positional } from '../src/database/sql.js';
import { createLogger } from '../src/logger.js';
import { POLICY_BY_NUMBER } from '../src/policies/policy.reads.js';
import type { SeedTree } from './seed.js';

/**
 * `npx tsx scripts/measure-row-decoding.ts [DATA_DIR]` (a directory the bench seeded, default
 * /work/bench-data): this process's CPU per policy read, 4 in flight, through the gateway and
 * through pg as a row object, a row array, one JSON column parsed, and one text column not
 * parsed (the baseline's way): what decoding a read costs the service (docs/benchmark.md, issue 26).
 */
const dataDir = process.argv[2] ?? '/work/bench-data';
const seed = JSON.parse(readFileSync(`${dataDir}/seed.json`, 'utf8')) as { trees: SeedTree[] };
const database = await startEmbeddedPostgres(dataDir, createLogger('warn'));
const gateway = new Database({ url: database.url });
const found = seed.trees.find((candidate) => candidate.deepPolicies.length > 0);
if (!found) throw new Error('the seed has no policies');
const tree = found;
const { sql, params } = accessPredicate('o', { sub: tree.ownerSub, org: tree.rootId });
const read = POLICY_BY_NUMBER(sql);
const text = positional(read);
const asJson = positional(`select row_to_json(q)::text as r from (${read}) q`);
// The gateway's column parsers (dates as text), so each way decodes the same values.
const pool = new pg.Pool({ connectionString: database.url, max: 4, types: (gateway as unknown as { pool: pg.Pool }).pool.options.types });
const ways: Record<string, (number: number) => Promise<unknown>> = {
  gateway: (number) => gateway.query(read, [number, ...params]),
  'row object': async (number) => (await pool.query({ name: 'm_object', text, values: [number, ...params] })).rows,
  'row array': async (number) => (await pool.query({ name: 'm_array', text, values: [number, ...params], rowMode: 'array' })).rows,
  'one JSON column, parsed': async (number) =>
    (await pool.query({ name: 'm_json', text: asJson, values: [number, ...params], rowMode: 'array' })).rows.map((row) =>
      JSON.parse((row as string[])[0]),
    ),
  'one text column, not parsed': async (number) =>
    (await pool.query({ name: 'm_json', text: asJson, values: [number, ...params], rowMode: 'array' })).rows,
};
async function cpuPerRead(way: (number: number) => Promise<unknown>, count: number): Promise<number> {
  const before = process.cpuUsage();
  let left = count;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (left-- > 0) await way(tree.deepPolicies[left % tree.deepPolicies.length]);
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}
for (const way of Object.values(ways)) await cpuPerRead(way, 2000);
const rounds = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]));
for (let round = 0; round < 5; round++) for (const [name, way] of Object.entries(ways)) rounds.get(name)?.push(await cpuPerRead(way, 5000));
for (const [name, values] of rounds) {
  values.sort((a, b) => a - b);
  console.log(`${name}: ${values[2].toFixed(1)} µs (rounds ${values.map((value) => value.toFixed(1)).join(', ')})`);
}
await pool.end();
await gateway.close();
await database.stop();
