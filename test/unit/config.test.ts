import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const key = () => randomBytes(32).toString('base64');

describe('loadConfig', () => {
  it('allows browser origins: local ones outside production, none in production, or CORS_ORIGINS', () => {
    expect(loadConfig({}).corsOrigins).toBe('localhost');
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), DATA_ENCRYPTION_KEY: key() }).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:5173' }).corsOrigins).toEqual(['https://a.example', 'http://localhost:5173']);
  });

  it('has working defaults for development', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ env: 'development', port: 4000, host: '0.0.0.0', migrateOnStart: true, logLevel: 'info' });
    expect(config.databaseUrl).toBeUndefined();
  });

  it.each([
    [{ PORT: 'x' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ JWT_PUBLIC_KEY: 'not a pem' }, 'JWT_PUBLIC_KEY'],
    [{ JWKS_URL: 'ftp://idp' }, 'JWKS_URL'],
    [{ DATA_ENCRYPTION_KEY: 'abc' }, 'DATA_ENCRYPTION_KEY'],
    [{ DATA_ENCRYPTION_PREVIOUS_KEYS: `${key()},nope` }, 'DATA_ENCRYPTION_PREVIOUS_KEYS'],
    [{ MIGRATE_ON_START: 'yes' }, 'MIGRATE_ON_START'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ NODE_ENV: 'production', DATA_ENCRYPTION_KEY: key() }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }, 'DATA_ENCRYPTION_KEY'],
    [{ NODE_ENV: 'production', JWKS_URL: 'https://idp.example/jwks', DATA_ENCRYPTION_KEY: key() }, 'JWT_AUDIENCE'],
    [{ NODE_ENV: 'production', JWKS_URL: 'https://idp.example/jwks', JWT_AUDIENCE: 'api', DATA_ENCRYPTION_KEY: key() }, 'JWT_ISSUER'],
    [{ RATE_LIMIT_REQUESTS_PER_MINUTE: '-1' }, 'RATE_LIMIT_REQUESTS_PER_MINUTE'],
    [{ RATE_LIMIT_CREATES_PER_MINUTE: 'lots' }, 'RATE_LIMIT_CREATES_PER_MINUTE'],
    [{ REQUEST_DEADLINE_SECONDS: '0' }, 'REQUEST_DEADLINE_SECONDS'],
    [{ HTTP_HEADERS_TIMEOUT_SECONDS: '60', HTTP_REQUEST_TIMEOUT_SECONDS: '30' }, 'HTTP_HEADERS_TIMEOUT_SECONDS'],
    [{ JWT_MAX_LIFETIME_SECONDS: 'forever' }, 'JWT_MAX_LIFETIME_SECONDS'],
    [{ TRUST_PROXY: 'maybe?' }, 'TRUST_PROXY'],
    [{ CORS_ORIGINS: 'app.example.com' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://app.example.com/' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'ftp://app.example.com' }, 'CORS_ORIGINS'],
    [{ GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'true' }, 'GRAPHQL_TRUSTED_DOCUMENTS'],
    [{ GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'sure' }, 'GRAPHQL_TRUSTED_DOCUMENTS_ONLY'],
    [{ WEB_CONCURRENCY: '0' }, 'WEB_CONCURRENCY'],
    [{ WEB_CONCURRENCY: 'abc' }, 'WEB_CONCURRENCY'],
    [{ WEB_CONCURRENCY: '-2' }, 'WEB_CONCURRENCY'],
    [{ WEB_CONCURRENCY: '1.5' }, 'WEB_CONCURRENCY'],
    [{ WEB_CONCURRENCY: '65' }, 'WEB_CONCURRENCY'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('runs one process per core by default, or WEB_CONCURRENCY of them (1 to 64)', () => {
    expect(loadConfig({}).webConcurrency).toBe(Math.min(availableParallelism(), 64));
    expect(loadConfig({ WEB_CONCURRENCY: '1' }).webConcurrency).toBe(1);
    expect(loadConfig({ WEB_CONCURRENCY: '64' }).webConcurrency).toBe(64);
    expect(() => loadConfig({ WEB_CONCURRENCY: 'abc' })).toThrow('WEB_CONCURRENCY must be an integer from 1 to 64 (got "abc")');
  });

  it('reads rotated keys', () => {
    const config = loadConfig({ DATA_ENCRYPTION_KEY: key(), DATA_ENCRYPTION_PREVIOUS_KEYS: `${key()}, ${key()}` });
    expect(config.previousDataEncryptionKeys).toHaveLength(2);
  });

  it('accepts a production configuration', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), DATA_ENCRYPTION_KEY: key(), DATABASE_URL: 'postgres://u:p@db/x' });
    expect(config.env).toBe('production');
  });

  it('has the limits of contract section 12 by default, each configurable, 0 turning a rate limit off', () => {
    expect(loadConfig({}).limits).toMatchObject({
      requestsPerMinute: 6000,
      createsPerMinute: 600,
      graphqlCostPerMinute: 200_000,
      anonymousPerMinute: 600,
      concurrentRequests: 16,
      requestDeadlineSeconds: 10,
      statementTimeoutSeconds: 10,
      http: { headersTimeoutSeconds: 10, requestTimeoutSeconds: 30 },
      quotas: { organizationsPerTree: null, policiesPerTree: null, webhookEndpointsPerTree: 25 },
    });
    expect(loadConfig({}).jwt.maxLifetimeSeconds).toBe(86_400);
    const off = loadConfig({ RATE_LIMIT_REQUESTS_PER_MINUTE: '0', QUOTA_POLICIES_PER_TREE: '1000', WEBHOOK_ENDPOINTS_PER_TREE: '0' });
    expect(off.limits.requestsPerMinute).toBe(0);
    expect(off.limits.quotas.policiesPerTree).toBe(1000);
    expect(off.limits.quotas.webhookEndpointsPerTree).toBeNull();
  });

  it('accepts a production configuration with an identity provider, its audience and its issuer', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      JWKS_URL: 'https://idp.example/jwks',
      JWT_AUDIENCE: 'org-policy',
      JWT_ISSUER: 'https://idp.example/',
      DATA_ENCRYPTION_KEY: key(),
    });
    expect(config.jwt).toMatchObject({ audience: 'org-policy', issuer: 'https://idp.example/' });
  });
});
