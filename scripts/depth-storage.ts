import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { mintToken } from '../src/auth/token-minter.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/service.js';
import { LIMITS_HIGH } from './bench-support.js';

/**
 * `npx tsx scripts/depth-storage.ts [--count 400] [--depths 1,8,16,32]`: what an organization,
 * a policy and their events cost in storage by the depth they are created at (contract section
 * 12, "Bounded trees"; docs/decisions.md has the table). Starts the service on its own embedded
 * PostgreSQL in a temporary directory, builds a chain down to the deepest depth over REST, then
 * at each depth makes `count` organizations and `count` policies and prints, per create, the
 * growth of each relation (pg_total_relation_size: table, indexes and TOAST).
 */
const { values } = parseArgs({ options: { count: { type: 'string', default: '400' }, depths: { type: 'string', default: '1,8,16,32' } } });
const count = Number(values.count);
const depths = values.depths.split(',').map(Number);
if (!Number.isInteger(count) || count < 1 || depths.some((depth) => !Number.isInteger(depth) || depth < 1)) {
  throw new Error('usage: npx tsx scripts/depth-storage.ts [--count N] [--depths 1,8,16,32]');
}
const maxDepth = Math.max(...depths);
const RELATIONS = ['organization', 'policy', 'policy_ancestor', 'event', 'event_ancestor'] as const;
type Sizes = Record<(typeof RELATIONS)[number], number>;

const dataDir = mkdtempSync(join(tmpdir(), 'org-policy-depth-'));
const secret = 'depth-storage-secret-of-at-least-32-bytes';
const config = loadConfig({
  NODE_ENV: 'development',
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  JWT_SECRET: secret,
  DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'warn',
  WEBHOOK_DELIVERY: 'false',
  ORGANIZATION_MAX_DEPTH: String(maxDepth),
  ...LIMITS_HIGH,
});
const service = await startService(config, createLogger('warn'));
const client = new pg.Client({ connectionString: service.databaseUrl });
await client.connect();
try {
  // Autovacuum would add free-space and visibility maps in the middle of a measurement.
  for (const relation of RELATIONS) await client.query(`alter table ${relation} set (autovacuum_enabled = false)`);
  const token = await mintToken(new TextEncoder().encode(secret), { sub: 'depth-storage', expiresIn: 3600 });
  const post = async (path: string, body: object): Promise<{ id?: string }> => {
    const response = await fetch(`${service.url}/api/v1/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id?: string };
  };
  const organization = (parentId: string | null) =>
    post('organization', {
      parentId,
      name: 'Paws & Claws',
      legalName: 'Paws & Claws LLC',
      legalType: 'llc',
      taxId: '12-3456789',
      email: 'billing@paws.example',
    });
  const policy = (organizationId: string) =>
    post('policy', {
      organizationId,
      ownerFirstname: 'Rosa',
      ownerLastname: 'Diaz',
      petName: 'Biscuit',
      effectiveDate: '2026-01-01',
      expirationDate: '2027-01-01',
      coverageSlug: 'accident-illness-basic',
    });
  const sizes = async (): Promise<Sizes> => {
    const { rows } = await client.query(
      `select ${RELATIONS.map((relation) => `pg_total_relation_size('${relation}') as ${relation}`).join(', ')}`,
    );
    return Object.fromEntries(RELATIONS.map((relation) => [relation, Number(rows[0][relation])])) as Sizes;
  };
  /** Bytes each relation grew by, per call of `create`, over `count` calls. */
  const perCreate = async (create: () => Promise<unknown>): Promise<Sizes> => {
    const before = await sizes();
    for (let i = 0; i < count; i++) await create();
    const after = await sizes();
    return Object.fromEntries(RELATIONS.map((relation) => [relation, Math.round((after[relation] - before[relation]) / count)])) as Sizes;
  };

  // chain[d - 1] is at depth d.
  const chain: string[] = [];
  for (let depth = 1; depth <= maxDepth; depth++) chain.push((await organization(chain.at(-1) ?? null)).id!);

  const rows: Array<{ depth: number; organization: Sizes; policy: Sizes }> = [];
  for (const depth of depths) {
    const parent = depth === 1 ? null : chain[depth - 2];
    rows.push({
      depth,
      organization: await perCreate(() => organization(parent)),
      policy: await perCreate(() => policy(chain[depth - 1])),
    });
  }

  const first = rows[0];
  const organizationTotal = (sizes: Sizes) => sizes.organization + sizes.event + sizes.event_ancestor;
  const policyTotal = (sizes: Sizes) => sizes.policy + sizes.policy_ancestor + sizes.event + sizes.event_ancestor;
  const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}x`;
  console.log(`bytes per create, over ${count} creates at each depth (pg_total_relation_size growth: table, indexes, TOAST)\n`);
  console.log(
    '| depth | organization | its event | its event_ancestor | per organization | policy | policy_ancestor | its event | its event_ancestor | per policy |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const { depth, organization: o, policy: p } of rows) {
    console.log(
      `| ${depth} | ${o.organization} | ${o.event} | ${o.event_ancestor} | ${organizationTotal(o)} (${ratio(organizationTotal(o), organizationTotal(first.organization))}) ` +
        `| ${p.policy} | ${p.policy_ancestor} | ${p.event} | ${p.event_ancestor} | ${policyTotal(p)} (${ratio(policyTotal(p), policyTotal(first.policy))}) |`,
    );
  }
} finally {
  await client.end();
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
