import { mkdtemp } from 'node:fs/promises';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { mintToken, type TokenClaims } from '../../src/auth/token-minter.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { organizationBody } from './fixtures.js';
import { request, type Client } from './http.js';

export const JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long!';
export const JWT_ISSUER = 'https://issuer.test';
export const JWT_AUDIENCE = 'org-policy-service';

export interface TestService extends RunningService {
  /** The environment the service was configured from (another instance on its database needs its DATA_ENCRYPTION_KEY). */
  env: Record<string, string>;
  /** A valid token for these claims, with the configured issuer and audience. */
  token(claims: Omit<TokenClaims, 'issuer' | 'audience'>): Promise<string>;
  /** Runs SQL against this service's database (to inspect rows). */
  sql<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
}

export interface TestServiceOptions {
  /** The PostgreSQL on which to create the new database (default: the run's). */
  adminUrl?: string;
  logger?: Logger;
  /** An existing database to use instead of a new one (another instance may share it). */
  databaseUrl?: string;
  /**
   * Another instance of the same deployment: this one runs on its database with its
   * DATA_ENCRYPTION_KEY (read when this one starts, so a `useTestService` handle will do).
   */
  sameDatabaseAs?: Pick<TestService, 'databaseUrl' | 'env'>;
}

/**
 * Starts the real service (the same start-up as `npm start`: migrations, Express, Apollo) on
 * a new, empty database of the run's PostgreSQL, on a free port.
 */
export async function startTestService(env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const shared = options.sameDatabaseAs;
  // Another instance may share a database that already exists.
  const databaseUrl = new URL(options.databaseUrl ?? shared?.databaseUrl ?? (await createTestDatabase(options.adminUrl)));
  const environment = serviceEnvironment(
    databaseUrl.toString(),
    {
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: await mkdtemp(join(tmpdir(), 'org-policy-data-')),
      ...env,
    },
    shared,
  );
  const config = loadConfig(environment);
  const service = await startService(config, options.logger ?? createLogger('silent'));
  const pool = new pg.Pool({ connectionString: databaseUrl.toString(), max: 2 });
  pool.on('error', () => undefined);
  return {
    ...service,
    env: environment,
    token: testToken,
    sql: async (text, values) => (await pool.query(text, values)).rows,
    async stop() {
      await pool.end();
      await service.stop();
    },
  };
}

/**
 * The environment of a test service on `databaseUrl` (started, or in process): the test tokens'
 * keys, a new data key or the one of the instance whose database it shares, silent logs, no part
 * in the billing sweep, then `env`. The sweep (contract section 19) runs at start and records
 * `policy.past_due` for the past-dated policies a test makes, at a moment no test controls: a
 * test of it asks for it (BILLING_SWEEP_SECONDS in `env`, test/e2e/billing-sweep.test.ts).
 */
export function serviceEnvironment(
  databaseUrl: string,
  env: Record<string, string>,
  sameDatabaseAs?: Pick<TestService, 'env'>,
): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    DATA_ENCRYPTION_KEY: sameDatabaseAs?.env.DATA_ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
    JWT_SECRET,
    JWT_ISSUER,
    JWT_AUDIENCE,
    LOG_LEVEL: 'silent',
    BILLING_SWEEP_SECONDS: '0',
    ...env,
  };
}

/** A valid token for these claims, with the issuer and audience a test service is configured with. */
export function testToken(claims: Omit<TokenClaims, 'issuer' | 'audience'>): Promise<string> {
  return mintToken(new TextEncoder().encode(JWT_SECRET), { issuer: JWT_ISSUER, audience: JWT_AUDIENCE, ...claims });
}

/** A new, empty database on the run's PostgreSQL (or on `adminUrl`); returns its URL. */
export async function createTestDatabase(adminUrl: string = inject('databaseAdminUrl')): Promise<string> {
  const name = `test_${randomUUID().replace(/-/g, '')}`;
  await withClient(adminUrl, (client) => client.query(`create database ${name}`));
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${name}`;
  return databaseUrl.toString();
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** A handle on the service `useTestService` runs: it is stopped by the hook, not by the tests. */
export type TestServiceHandle = Omit<TestService, 'stop'>;

/**
 * Runs a test service (`startTestService(env, options)`) for the enclosing `describe`, or the
 * file: started in `beforeAll`, stopped in `afterAll`. Hooks run in the order they are
 * registered and after-hooks in reverse (vitest's `sequence.hooks: 'stack'`), so a `beforeAll`
 * registered after this call sees the service started, and a second service started after a
 * first is stopped before it. The handle reads the running service on each access: use it
 * inside tests and hooks, not while the tests are collected.
 */
export function useTestService(env: Record<string, string> = {}, options: TestServiceOptions = {}): TestServiceHandle {
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await startTestService(env, options);
  });
  afterAll(() => service?.stop());
  const running = (): TestService => {
    if (!service) throw new Error('The test service is not running: use it inside a test or a hook, after its beforeAll.');
    return service;
  };
  return {
    get url() {
      return running().url;
    },
    get server() {
      return running().server;
    },
    get database() {
      return running().database;
    },
    get databaseUrl() {
      return running().databaseUrl;
    },
    get env() {
      return running().env;
    },
    token: (claims) => running().token(claims),
    sql: <T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]) => running().sql<T>(text, values),
  };
}

/** A started service as the suite's requests see it (test/support/http.ts `Client`), like the in-process one. */
export function clientOf(service: Pick<TestService, 'url' | 'token'>): Client {
  return { request: (method, path, options) => request(service.url, method, path, options), token: (claims) => service.token(claims) };
}

/** Creates a root organization as alice, on a started `service` or in process; returns it and a token of alice acting for it. */
export async function createRootOrganization(service: Pick<TestService, 'url' | 'token'> | Client) {
  const client = 'request' in service ? service : clientOf(service);
  const root = await client.request('POST', '/api/v1/organization', {
    token: await client.token({ sub: 'alice' }),
    body: organizationBody(),
  });
  const organizationId = root.body.id as string;
  return { organizationId, token: await client.token({ sub: 'alice', org: organizationId }) };
}
