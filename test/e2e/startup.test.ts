import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFloorProblem } from '../../src/node-floor.js';
import { itUnless } from '../support/programs.js';
import { organizationBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { createTestDatabase } from '../support/test-service.js';
import { startMain, stopMain } from '../support/service-process.js';

describe('starting the service as npm start does', () => {
  const cleanup: string[] = [];
  afterAll(async () => {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
  });

  it('runs on embedded PostgreSQL with a printed token, and keeps data across a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-start-'));
    cleanup.push(dataDir);

    const first = await startMain({ DATA_DIR: dataDir });
    expect(first.token, first.output()).toBeDefined();
    const created = await request(first.url, 'POST', '/api/v1/organization', { token: first.token, body: organizationBody() });
    expect(created.status).toBe(200);
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    const stopped = await stopMain(first.child);
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);

    const second = await startMain({ DATA_DIR: dataDir });
    try {
      // The development secret persists too, so the first token still works.
      const read = await request(second.url, 'GET', `/api/v1/organization/${created.body.id}`, { token: first.token });
      expect(read.status).toBe(200);
      // The read answers the create's shape (contract section 18).
      expect(read.body).toEqual(created.body);
    } finally {
      expect((await stopMain(second.child)).code).toBe(0);
    }
    // Two starts, the first with initdb: 20 s alone on a busy 2-core machine, more under the full suite.
  }, 90_000);

  it('uses DATABASE_URL instead of an embedded database when it is set', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-start-'));
    cleanup.push(dataDir);
    const databaseUrl = new URL(await createTestDatabase());

    const started = await startMain({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl.toString() });
    try {
      const created = await request(started.url, 'POST', '/api/v1/organization', { token: started.token, body: organizationBody() });
      expect(created.status).toBe(200);
      expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
      const client = new pg.Client({ connectionString: databaseUrl.toString() });
      await client.connect();
      const { rows } = await client.query('select id from organization');
      await client.end();
      expect(rows).toEqual([{ id: created.body.id }]);
    } finally {
      expect((await stopMain(started.child)).code).toBe(0);
    }
  });

  it('refuses to start in production without a way to verify tokens, naming the variables', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(1);
    expect(output.trim()).toBe('Configuration error: NODE_ENV=production needs JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL to verify tokens');
  });

  // Contract section 12, "Production": each refused with one line, exit code 1, before anything listens.
  const production = {
    NODE_ENV: 'production',
    PORT: '0',
    JWT_SECRET: 'x'.repeat(32),
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x',
  };
  it.each([
    [{ DATABASE_URL: '' }, 'NODE_ENV=production needs DATABASE_URL (the embedded PostgreSQL is for development only)'],
    [
      { JWT_SECRET: '', JWKS_URL: 'http://127.0.0.1:9/jwks', JWT_AUDIENCE: 'a', JWT_ISSUER: 'i' },
      'NODE_ENV=production needs an https JWKS_URL (over http anyone on the path could serve keys and forge tokens)',
    ],
    [
      { TRUST_PROXY: 'true' },
      'NODE_ENV=production refuses TRUST_PROXY=true (any client could choose its address): give the number of proxies or their addresses',
    ],
  ])('refuses to start in production with %j, in one line', async (env, line) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, ...production, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(1);
    expect(output.trim()).toBe(`Configuration error: ${line}`);
  });

  it('refuses a bad setting with a message naming the variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk) => (output += chunk));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(1);
    expect(output).toContain('PORT must be an integer');
  });

  // The machine's own Node, as a `node dist/src/main.js` typed in a shell finds it: the first on
  // PATH outside node_modules/.bin (where npm scripts find the project's Node 24). On a machine
  // whose own Node is already new enough there is no older one to start, and the unit test of
  // nodeFloorProblem is what remains.
  const machineNode = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((folder) => folder && !folder.includes('node_modules'))
    .map((folder) => join(folder, 'node'))
    .find((file) => existsSync(file));
  const machineNodeVersion = machineNode ? spawnSync(machineNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';

  itUnless(
    nodeFloorProblem(machineNodeVersion || 'v999.0.0') === undefined
      ? `needs a Node older than the floor on PATH outside node_modules to start (this machine's is ${machineNodeVersion || 'missing'}); test/unit/node-floor.test.ts covers the rule.`
      : undefined,
    `refuses the machine's own older Node (${machineNodeVersion}) with one line and exit code 1`,
    async () => {
      const child = spawn(machineNode!, ['--import', 'tsx', 'src/main.ts'], {
        env: { PATH: process.env.PATH, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      expect(await new Promise((resolve) => child.once('close', resolve))).toBe(1);
      expect(output.trim().split('\n')).toEqual([nodeFloorProblem(machineNodeVersion)]);
    },
  );
});
