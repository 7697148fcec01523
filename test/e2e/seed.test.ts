import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { createTestDatabase, startTestService, type TestService } from '../support/test-service.js';

/** `npm run seed` on a small scale: trees of the asked depth, policies with 12 charges, readable through the API. */
describe('npm run seed', () => {
  let service: TestService | undefined;
  let dataDir: string;
  afterAll(async () => {
    await service?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('loads trees of the given depth and policies that the service serves', async () => {
    const databaseUrl = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'org-policy-seed-'));

    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/seed.ts', '--orgs', '300', '--policies', '2000', '--depth', '7'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ organizations: 300, policies: 2000, charges: 24000, depth: 7 });

    service = await startTestService({}, { databaseUrl });
    const counts = await service.sql<{ organizations: string; policies: string; charges: string; states: string; depth: number }>(
      `select (select count(*) from organization) as organizations, (select count(*) from policy) as policies,
              (select count(*) from charge) as charges, (select count(*) from policy_state) as states,
              (select max(cardinality(path)) from organization) as depth`,
    );
    // Each policy with the state its issuance leaves (policy_state), as the service writes it.
    expect(counts[0]).toEqual({ organizations: '300', policies: '2000', charges: '24000', states: '2000', depth: 7 });

    const { trees } = JSON.parse(await readFile(join(dataDir, 'seed.json'), 'utf8'));
    const tree = trees[0];
    const token = await service.token({ sub: tree.ownerSub, org: tree.rootId });
    const policy = await request(service.url, 'GET', `/api/v1/policy/${tree.deepPolicies[0]}`, { token });
    expect(policy.status).toBe(200);
    expect(policy.body.charges).toHaveLength(12);
    expect([policy.body.version, policy.headers.get('etag')]).toEqual([1, '"1"']);
    // Its billing as the service would store it (contract section 19): the premiums due by today, nothing paid.
    const today = new Date().toISOString().slice(0, 10);
    const billed = policy.body.charges.filter((charge: { dueDate: string }) => charge.dueDate <= today);
    expect(policy.body.billing).toMatchObject({
      billed: billed.reduce((sum: number, charge: { amount: number }) => sum + charge.amount, 0),
      paid: 0,
    });
    const organization = await request(service.url, 'GET', `/api/v1/organization/${tree.deepest[0]}`, { token });
    expect(organization.status).toBe(200);
  });
});
