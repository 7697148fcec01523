import { MAX_LEDGER_CHARGES } from '../../src/policies/ledger/ledger-room.js';
import { MAX_CHARGES } from '../../src/policies/ledger/premium-schedule.js';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { treeLimitSettings } from '../../src/limits/tree-depth.js';

const key = () => randomBytes(32).toString('base64');
/** The least a production start needs. */
const production = () => ({
  NODE_ENV: 'production',
  JWT_SECRET: 'x'.repeat(32),
  DATA_ENCRYPTION_KEY: key(),
  DATABASE_URL: 'postgres://u:p@db/x',
});

describe('loadConfig', () => {
  it('allows browser origins: local ones outside production, none in production, or CORS_ORIGINS', () => {
    expect(loadConfig({}).corsOrigins).toBe('localhost');
    expect(loadConfig({ ...production() }).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:5173' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
  });

  it('has working defaults for development', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ env: 'development', port: 4000, host: '127.0.0.1', migrateOnStart: true, logLevel: 'info' });
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
    [{ ...production(), TRUST_PROXY: 'true' }, 'TRUST_PROXY=true'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'loopback, 10.0.0.0/8, lan' }, '"lan"'],
    [{ TRUST_PROXY: '300.1.1.1' }, 'TRUST_PROXY'],
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
    [{ ...production(), DATABASE_URL: '' }, 'DATABASE_URL'],
    [{ ...production(), JWKS_URL: 'http://idp.example/jwks', JWT_AUDIENCE: 'api', JWT_ISSUER: 'https://idp.example/' }, 'https JWKS_URL'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('keeps quotes QUOTE_VALID_DAYS days, 30 by default, 1 to 3650 (a timestamp must hold now() + days)', () => {
    expect(loadConfig({}).quoteValidDays).toBe(30);
    expect(loadConfig({ QUOTE_VALID_DAYS: '1' }).quoteValidDays).toBe(1);
    expect(loadConfig({ QUOTE_VALID_DAYS: '3650' }).quoteValidDays).toBe(3650);
    for (const value of ['0', '-1', '1.5', 'ten', '3651', '999999999']) {
      expect(() => loadConfig({ QUOTE_VALID_DAYS: value }), value).toThrow(ConfigError);
    }
  });

  it('reads the cancellation and renewal rules: free look 15 days, short rate 10%, reinstatement 30 days, renewal window 60 days before and 30 after expiry by default; 0 allowed, the percent at most 100', () => {
    expect(loadConfig({}).policyRules).toEqual({
      freeLookDays: 15,
      shortRatePercent: 10,
      reinstatementDays: 30,
      renewalWindowDays: 60,
      renewalLateDays: 30,
      maxCharges: 1000,
      billingGraceDays: 15,
      billingLapseDays: 0,
      billingSweepSeconds: 3600,
    });
    expect(
      loadConfig({
        POLICY_FREE_LOOK_DAYS: '0',
        POLICY_SHORT_RATE_PERCENT: '100',
        POLICY_REINSTATEMENT_DAYS: '3650',
        POLICY_RENEWAL_WINDOW_DAYS: '0',
        POLICY_RENEWAL_LATE_DAYS: '0',
        BILLING_GRACE_DAYS: '0',
        BILLING_LAPSE_DAYS: '30',
        BILLING_SWEEP_SECONDS: '60',
      }).policyRules,
    ).toEqual({
      freeLookDays: 0,
      shortRatePercent: 100,
      reinstatementDays: 3650,
      renewalWindowDays: 0,
      renewalLateDays: 0,
      maxCharges: 1000,
      billingGraceDays: 0,
      billingLapseDays: 30,
      billingSweepSeconds: 60,
    });
    // 0: this instance takes no part in the sweep (another runs it; docs/decisions.md, "The billing sweep").
    expect(loadConfig({ BILLING_SWEEP_SECONDS: '0' }).policyRules.billingSweepSeconds).toBe(0);
    for (const [name, value] of [
      ['POLICY_SHORT_RATE_PERCENT', '101'],
      ['POLICY_SHORT_RATE_PERCENT', '2.5'],
      ['POLICY_FREE_LOOK_DAYS', '-1'],
      ['POLICY_REINSTATEMENT_DAYS', '3651'],
      ['POLICY_RENEWAL_WINDOW_DAYS', '3651'],
      ['POLICY_RENEWAL_WINDOW_DAYS', 'soon'],
      ['POLICY_RENEWAL_LATE_DAYS', '3651'],
      ['BILLING_GRACE_DAYS', '3651'],
      ['BILLING_LAPSE_DAYS', '-1'],
      ['BILLING_SWEEP_SECONDS', '-1'],
      ['BILLING_SWEEP_SECONDS', '1.5'],
      ['POLICY_RENEWAL_LATE_DAYS', '-1'],
    ]) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(name);
    }
  });

  it('reads POLICY_MAX_CHARGES: 1,000 by default, from 185 (the longest schedule with room for a cancellation and its reinstatement) to 1,000 (MAX_LEDGER_CHARGES)', () => {
    expect(loadConfig({ POLICY_MAX_CHARGES: '185' }).policyRules.maxCharges).toBe(185);
    expect(loadConfig({ POLICY_MAX_CHARGES: String(MAX_LEDGER_CHARGES) }).policyRules.maxCharges).toBe(MAX_LEDGER_CHARGES);
    // The floor: 61 periods, then 62 lines of a cancellation and as many of its reinstatement.
    expect(185).toBe(MAX_CHARGES + 2 * (MAX_CHARGES + 1));
    for (const value of ['184', '1001', '0', 'many', '1e3']) {
      expect(() => loadConfig({ POLICY_MAX_CHARGES: value }), value).toThrow('POLICY_MAX_CHARGES');
    }
  });

  it('runs one process per core by default, or WEB_CONCURRENCY of them (1 to 64)', () => {
    expect(loadConfig({}).webConcurrency).toBe(Math.min(availableParallelism(), 64));
    expect(loadConfig({ WEB_CONCURRENCY: '1' }).webConcurrency).toBe(1);
    expect(loadConfig({ WEB_CONCURRENCY: '64' }).webConcurrency).toBe(64);
    expect(() => loadConfig({ WEB_CONCURRENCY: 'abc' })).toThrow('WEB_CONCURRENCY must be an integer from 1 to 64 (got "abc")');
  });

  it('reads METRICS_OPERATION_NAMES as comma-separated GraphQL names, none by default, and stops on anything else', () => {
    expect(loadConfig({}).metricsOperationNames).toEqual([]);
    expect(loadConfig({ METRICS_OPERATION_NAMES: ' GetPolicy, ListOrganizations ,,_private' }).metricsOperationNames).toEqual([
      'GetPolicy',
      'ListOrganizations',
      '_private',
    ]);
    expect(() => loadConfig({ METRICS_OPERATION_NAMES: 'GetPolicy,get-policy' })).toThrow(
      'METRICS_OPERATION_NAMES must list GraphQL operation names separated by commas (got "get-policy")',
    );
  });

  it('takes an http JWKS_URL outside production only', () => {
    expect(loadConfig({ JWKS_URL: 'http://127.0.0.1:9/jwks' }).jwt.jwksUrl?.protocol).toBe('http:');
  });

  it("takes Express's trust proxy values: hops, named ranges, addresses and CIDR ranges; true outside production", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::/8, 192.0.2.7' }).trustProxy).toBe(
      'loopback,10.0.0.0/8,fd00::/8,192.0.2.7',
    );
    expect(loadConfig({ ...production(), TRUST_PROXY: 'uniquelocal' }).trustProxy).toBe('uniquelocal');
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it('listens on loopback outside production unless HOST says otherwise, on every interface in production', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig(production()).host).toBe('0.0.0.0');
  });

  it('reads rotated keys', () => {
    const config = loadConfig({ DATA_ENCRYPTION_KEY: key(), DATA_ENCRYPTION_PREVIOUS_KEYS: `${key()}, ${key()}` });
    expect(config.previousDataEncryptionKeys).toHaveLength(2);
  });

  it('accepts a production configuration', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      JWT_SECRET: 'x'.repeat(32),
      DATA_ENCRYPTION_KEY: key(),
      DATABASE_URL: 'postgres://u:p@db/x',
    });
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
      http: { headersTimeoutSeconds: 10, requestTimeoutSeconds: 30, maxConnections: 1000, maxConnectionsPerAddress: 100 },
      quotas: { organizationsPerTree: null, policiesPerTree: null, webhookEndpointsPerTree: 25, rootsPerSub: 25 },
    });
    expect(loadConfig({}).jwt.maxLifetimeSeconds).toBe(86_400);
    const off = loadConfig({
      RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
      QUOTA_POLICIES_PER_TREE: '1000',
      WEBHOOK_ENDPOINTS_PER_TREE: '0',
      ORGANIZATION_ROOTS_PER_SUB: '0',
    });
    expect(off.limits.requestsPerMinute).toBe(0);
    expect(off.limits.quotas.policiesPerTree).toBe(1000);
    expect(off.limits.quotas.webhookEndpointsPerTree).toBeNull();
    expect(off.limits.quotas.rootsPerSub).toBeNull();
    expect(loadConfig({ ORGANIZATION_ROOTS_PER_SUB: '3' }).limits.quotas.rootsPerSub).toBe(3);
  });

  it('caps organization trees at ORGANIZATION_MAX_DEPTH levels (32 by default), a positive integer, and tells the database', () => {
    expect(loadConfig({}).limits.organizationMaxDepth).toBe(32);
    expect(loadConfig({ ORGANIZATION_MAX_DEPTH: '' }).limits.organizationMaxDepth).toBe(32);
    expect(loadConfig({ ORGANIZATION_MAX_DEPTH: '3' }).limits.organizationMaxDepth).toBe(3);
    for (const value of ['0', '-1', '3.5', 'abc', ' 3', '1e3']) {
      expect(() => loadConfig({ ORGANIZATION_MAX_DEPTH: value })).toThrow(
        `ORGANIZATION_MAX_DEPTH must be a positive integer (got "${value}")`,
      );
    }
    // The trigger reads the connection's setting; the quotas go with it when configured.
    expect(
      treeLimitSettings(
        loadConfig({ ORGANIZATION_MAX_DEPTH: '3', WEBHOOK_ENDPOINTS_PER_TREE: '0', ORGANIZATION_ROOTS_PER_SUB: '0' }).limits,
      ),
    ).toBe('-c org_policy.organization_max_depth=3');
    expect(treeLimitSettings(loadConfig({ QUOTA_ORGANIZATIONS_PER_TREE: '7' }).limits)).toBe(
      '-c org_policy.quota_organizations_per_tree=7 -c org_policy.quota_webhook_endpoints_per_tree=25 -c org_policy.quota_roots_per_sub=25 -c org_policy.organization_max_depth=32',
    );
  });

  it('accepts a production configuration with an identity provider, its audience and its issuer', () => {
    const config = loadConfig({
      NODE_ENV: 'production',
      JWKS_URL: 'https://idp.example/jwks',
      JWT_AUDIENCE: 'org-policy',
      JWT_ISSUER: 'https://idp.example/',
      DATA_ENCRYPTION_KEY: key(),
      DATABASE_URL: 'postgres://u:p@db/x',
    });
    expect(config.jwt).toMatchObject({ audience: 'org-policy', issuer: 'https://idp.example/' });
  });
});
