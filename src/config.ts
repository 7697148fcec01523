import { createPublicKey, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { LogFormat } from './logger.js';

/** Every setting the service reads, parsed and validated once at start-up. */
export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  /**
   * Processes serving the port (WEB_CONCURRENCY): 1 is the service alone in this process; more
   * is a node:cluster primary and that many workers (cluster-primary.ts).
   */
  webConcurrency: number;
  /** Unset: an embedded PostgreSQL under `dataDir`. */
  databaseUrl?: string;
  /** Contract section 17: read replicas and how the service talks to PostgreSQL. */
  database: DatabaseSettings;
  migrateOnStart: boolean;
  /** Where development secrets and the embedded database live (git-ignored). */
  dataDir: string;
  logLevel: string;
  /** Spec section 13: `pretty` by default on a terminal outside production, else `json`. */
  logFormat: LogFormat;
  /** Spec section 13: `/metrics` needs `Authorization: Bearer <token>` when set; unset in production, it is 404. */
  metricsToken?: string;
  /** Contract section 13: METRICS_OPERATION_NAMES, operation names with a metrics label of their own besides the manifest's and the REST documents'. */
  metricsOperationNames: string[];
  jwt: {
    secret?: Uint8Array;
    publicKey?: { key: KeyObject; algorithms: string[] };
    jwksUrl?: URL;
    issuer?: string;
    audience?: string;
    /** Longest accepted token lifetime (`exp` - `iat`, or `exp` - now without `iat`). */
    maxLifetimeSeconds: number;
  };
  /** Express `trust proxy`: which proxies' X-Forwarded-For decides the client address. */
  trustProxy: boolean | number | string;
  /** Base64 of 32 bytes; unset outside production means a generated key under `dataDir`. */
  dataEncryptionKey?: Buffer;
  /** Keys retired by a rotation: still used to read values they sealed, never to seal. */
  previousDataEncryptionKeys: Buffer[];
  /** How long responses are kept for Idempotency-Key replays (spec: 24 hours). */
  idempotencyRetentionSeconds: number;
  graphql: {
    /** Schema introspection; off in production unless GRAPHQL_INTROSPECTION=true. */
    introspection: boolean;
    limits: GraphQLLimits;
    /** The frontends' manifest of trusted documents (GRAPHQL_TRUSTED_DOCUMENTS), a file path; unset, none. */
    trustedDocuments?: string;
    /** GRAPHQL_TRUSTED_DOCUMENTS_ONLY: refuse every document that is not in the manifest. */
    trustedDocumentsOnly: boolean;
  };
  /** Spec section 12: what one caller, one request and one connection may take. */
  limits: CallerLimits;
  /**
   * Spec section 9: the browser origins allowed to call the service. `'*'` is any origin;
   * `'localhost'` (the default outside production) any http://localhost:<port> or
   * http://127.0.0.1:<port> or http://[::1]:<port>; a list, those exact origins; empty (production's default), none.
   */
  corsOrigins: '*' | 'localhost' | string[];
  /** Spec section 9: GraphiQL, the REST reference, Sandbox and the index; on outside production unless DEVELOPER_PAGES=false. */
  developerPages: boolean;
  /** Spec section 11: webhook delivery. */
  webhooks: WebhookSettings;
  /** Contract section 14: days a quote can be issued after it is made (QUOTE_VALID_DAYS, 30). */
  quoteValidDays: number;
  /** Contract section 14: the rules of cancelling and reinstating a policy. */
  policyRules: PolicyRules;
  /** Contract section 21: the audit log. */
  audit: AuditSettings;
}

/** Contract section 21 (docs/decisions.md, "The audit log"). */
export interface AuditSettings {
  /** AUDIT_READS (false): every request that returns policies or organizations appends a `policy.read` / `organization.read` entry. */
  reads: boolean;
  /** AUDIT_RETENTION_DAYS (400): entries older than this are deleted (a prefix of each tree's chain). */
  retentionDays: number;
  /** AUDIT_SEAL_SECONDS (2; 0: this instance does not seal): how often the sealer tries a pass. */
  sealSeconds: number;
}

/** Contract section 17 (docs/scaling.md). */
export interface DatabaseSettings {
  /** DATABASE_REPLICA_URLS: streaming replicas that serve reads; none by default. */
  replicaUrls: string[];
  /** DATABASE_REPLICA_STICKY_SECONDS (5): a caller's reads go to the primary this long after its own write on this instance. */
  replicaStickySeconds: number;
  /** DATABASE_REPLICA_MAX_LAG_SECONDS (10): a replica further behind is skipped until it catches up. */
  replicaMaxLagSeconds: number;
  /** DATABASE_PREPARED_STATEMENTS (true): off for a pooler in transaction mode (PgBouncer before 1.21). */
  preparedStatements: boolean;
}

/** POLICY_FREE_LOOK_DAYS (15), POLICY_SHORT_RATE_PERCENT (10), POLICY_REINSTATEMENT_DAYS (30), POLICY_RENEWAL_WINDOW_DAYS (60), POLICY_RENEWAL_LATE_DAYS (30), POLICY_MAX_CHARGES (1000); BILLING_GRACE_DAYS (15), BILLING_LAPSE_DAYS (0), BILLING_SWEEP_SECONDS (3600). */
export interface PolicyRules {
  /** A free_look cancellation may take effect at most this many days after the policy's effectiveDate. */
  freeLookDays: number;
  /** The short-rate fee: this percentage of the credits (0 to 100). */
  shortRatePercent: number;
  /** A cancellation can be undone until this many days after it took effect. */
  reinstatementDays: number;
  /** A policy can be renewed from this many days before its expirationDate onwards. */
  renewalWindowDays: number;
  /** ... and until this many days after it: then it has lapsed, and a new policy is new business. */
  renewalLateDays: number;
  /** POLICY_MAX_CHARGES: the most charges a policy's ledger holds (contract section 14, "Bounded ledgers"). */
  maxCharges: number;
  /** Contract section 19: BILLING_GRACE_DAYS (15), how long a charge may be unpaid before it is past due. */
  billingGraceDays: number;
  /** BILLING_LAPSE_DAYS (0: off): a policy unpaid this long after its oldest unpaid due date lapses (non_payment). */
  billingLapseDays: number;
  /**
   * BILLING_SWEEP_SECONDS (3600): how often the billing sweep (lapse, policy.past_due) runs, once
   * across instances; 0: this instance takes no part in it (the others run it).
   */
  billingSweepSeconds: number;
}

export interface WebhookSettings {
  /** Run delivery workers on this instance (WEBHOOK_DELIVERY). */
  delivery: boolean;
  /** Only https URLs resolving to public addresses (production unless WEBHOOK_ALLOW_PRIVATE_URLS=true). */
  publicUrlsOnly: boolean;
  /** Attempts before an undelivered event is marked failed, and the backoff's first step. */
  maxAttempts: number;
  retryBaseSeconds: number;
  /** No attempt is made after this long from the event (3 days). */
  retryWindowSeconds: number;
  /** One attempt's time limit (10 s). */
  timeoutSeconds: number;
  /** Events and their deliveries are deleted after this long (30 days). */
  retentionSeconds: number;
  /** Attempts one instance makes at once, each job on its own (WEBHOOK_CONCURRENCY, 10). */
  concurrency: number;
  /**
   * Attempts in flight at once for one tenant (the `sub` that created a root, with all its
   * trees), across instances (WEBHOOK_IN_FLIGHT_PER_TENANT, 4): the rest of the capacity stays
   * free for other tenants; it bounds each tree and endpoint too.
   */
  inFlightPerTenant: number;
}

/** Per-caller budgets (0 = off) and per-request bounds; spec section 12. */
export interface CallerLimits {
  /** Requests a minute per `sub`. */
  requestsPerMinute: number;
  /** Writes (every mutation and the REST route that runs it) a minute per `sub`, across instances. */
  createsPerMinute: number;
  /** GraphQL cost points a minute per `sub`. */
  graphqlCostPerMinute: number;
  /** Unauthenticated requests a minute per client address. */
  anonymousPerMinute: number;
  /** Length of the counting window; each window allows (per minute) x window / 60. */
  windowSeconds: number;
  /** Requests of one `sub` in flight at once on an instance. */
  concurrentRequests: number;
  /** A request not answered by then gets 503 UNAVAILABLE. */
  requestDeadlineSeconds: number;
  /** PostgreSQL statement_timeout for the service's connections. */
  statementTimeoutSeconds: number;
  /** Largest response body; a bigger one is refused instead of sent. */
  responseMaxBytes: number;
  /** Largest response kept for an Idempotency-Key replay; a bigger one is rebuilt from its record. */
  idempotencyKeptResponseMaxBytes: number;
  http: {
    headersTimeoutSeconds: number;
    requestTimeoutSeconds: number;
    keepAliveTimeoutSeconds: number;
    maxConnections: number;
    /** Open connections per client address (the socket's: behind a proxy, the proxy's). */
    maxConnectionsPerAddress: number;
  };
  /** Per root organization tree; null = no quota. */
  quotas: {
    organizationsPerTree: number | null;
    policiesPerTree: number | null;
    webhookEndpointsPerTree: number | null;
    /** Root organizations one `sub` may create (ORGANIZATION_ROOTS_PER_SUB, 25); null = no quota. */
    rootsPerSub: number | null;
  };
  /** Levels an organization tree may have, a root being level 1 (ORGANIZATION_MAX_DEPTH). */
  organizationMaxDepth: number;
}

/** Refused before any resolver runs (spec section 8). */
export interface GraphQLLimits {
  depth: number;
  aliases: number;
  directives: number;
  tokens: number;
  cost: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env, stdoutIsTerminal = Boolean(process.stdout.isTTY)): Config {
  const nodeEnv = env.NODE_ENV ?? 'development';
  if (!['development', 'test', 'production'].includes(nodeEnv)) {
    throw new ConfigError(`NODE_ENV must be development, test or production (got "${nodeEnv}")`);
  }
  const config: Config = {
    env: nodeEnv as Config['env'],
    port: parsePort(env.PORT),
    // Outside production only this machine can reach it (it prints a valid token); a container
    // in production listens on every interface.
    host: env.HOST || (nodeEnv === 'production' ? '0.0.0.0' : '127.0.0.1'),
    webConcurrency: parseWebConcurrency(env.WEB_CONCURRENCY),
    databaseUrl: parseDatabaseUrl('DATABASE_URL', env.DATABASE_URL),
    database: {
      replicaUrls: (env.DATABASE_REPLICA_URLS ?? '')
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean)
        .map((url) => parseDatabaseUrl('DATABASE_REPLICA_URLS', url) ?? url),
      replicaStickySeconds: parseBudget('DATABASE_REPLICA_STICKY_SECONDS', env.DATABASE_REPLICA_STICKY_SECONDS, 5),
      replicaMaxLagSeconds: parseLimit('DATABASE_REPLICA_MAX_LAG_SECONDS', env.DATABASE_REPLICA_MAX_LAG_SECONDS, 10),
      preparedStatements: parseBoolean('DATABASE_PREPARED_STATEMENTS', env.DATABASE_PREPARED_STATEMENTS, true),
    },
    migrateOnStart: parseBoolean('MIGRATE_ON_START', env.MIGRATE_ON_START, true),
    dataDir: resolve(env.DATA_DIR || '.data'),
    logLevel: parseChoice('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info'),
    logFormat: parseChoice(
      'LOG_FORMAT',
      env.LOG_FORMAT,
      ['pretty', 'json'],
      stdoutIsTerminal && nodeEnv !== 'production' ? 'pretty' : 'json',
    ),
    metricsToken: parseMetricsToken(env.METRICS_TOKEN),
    metricsOperationNames: parseOperationNames(env.METRICS_OPERATION_NAMES),
    jwt: {
      secret: parseSecret(env.JWT_SECRET),
      publicKey: parsePublicKey(env.JWT_PUBLIC_KEY),
      jwksUrl: parseJwksUrl(env.JWKS_URL),
      issuer: env.JWT_ISSUER || undefined,
      audience: env.JWT_AUDIENCE || undefined,
      maxLifetimeSeconds: parseLimit('JWT_MAX_LIFETIME_SECONDS', env.JWT_MAX_LIFETIME_SECONDS, 24 * 3600),
    },
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    dataEncryptionKey: parseEncryptionKey('DATA_ENCRYPTION_KEY', env.DATA_ENCRYPTION_KEY),
    previousDataEncryptionKeys: (env.DATA_ENCRYPTION_PREVIOUS_KEYS ?? '')
      .split(',')
      .map((value) => parseEncryptionKey('DATA_ENCRYPTION_PREVIOUS_KEYS', value.trim()))
      .filter((key) => key !== undefined),
    idempotencyRetentionSeconds: parseLimit('IDEMPOTENCY_KEY_RETENTION_SECONDS', env.IDEMPOTENCY_KEY_RETENTION_SECONDS, 24 * 3600),
    graphql: {
      introspection: parseBoolean('GRAPHQL_INTROSPECTION', env.GRAPHQL_INTROSPECTION, nodeEnv !== 'production'),
      limits: {
        depth: parseLimit('GRAPHQL_MAX_DEPTH', env.GRAPHQL_MAX_DEPTH, 10),
        aliases: parseLimit('GRAPHQL_MAX_ALIASES', env.GRAPHQL_MAX_ALIASES, 15),
        directives: parseLimit('GRAPHQL_MAX_DIRECTIVES', env.GRAPHQL_MAX_DIRECTIVES, 50),
        tokens: parseLimit('GRAPHQL_MAX_TOKENS', env.GRAPHQL_MAX_TOKENS, 2000),
        cost: parseLimit('GRAPHQL_MAX_COST', env.GRAPHQL_MAX_COST, 5000),
      },
      trustedDocuments: env.GRAPHQL_TRUSTED_DOCUMENTS ? resolve(env.GRAPHQL_TRUSTED_DOCUMENTS) : undefined,
      trustedDocumentsOnly: parseBoolean('GRAPHQL_TRUSTED_DOCUMENTS_ONLY', env.GRAPHQL_TRUSTED_DOCUMENTS_ONLY, false),
    },
    limits: parseCallerLimits(env),
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS, nodeEnv),
    developerPages: parseBoolean('DEVELOPER_PAGES', env.DEVELOPER_PAGES, nodeEnv !== 'production'),
    webhooks: {
      delivery: parseBoolean('WEBHOOK_DELIVERY', env.WEBHOOK_DELIVERY, true),
      publicUrlsOnly: nodeEnv === 'production' && !parseBoolean('WEBHOOK_ALLOW_PRIVATE_URLS', env.WEBHOOK_ALLOW_PRIVATE_URLS, false),
      maxAttempts: parseLimit('WEBHOOK_MAX_ATTEMPTS', env.WEBHOOK_MAX_ATTEMPTS, 13),
      retryBaseSeconds: parseLimit('WEBHOOK_RETRY_BASE_SECONDS', env.WEBHOOK_RETRY_BASE_SECONDS, 60),
      retryWindowSeconds: parseLimit('WEBHOOK_RETRY_WINDOW_SECONDS', env.WEBHOOK_RETRY_WINDOW_SECONDS, 3 * 24 * 3600),
      timeoutSeconds: parseLimit('WEBHOOK_TIMEOUT_SECONDS', env.WEBHOOK_TIMEOUT_SECONDS, 10),
      retentionSeconds: parseLimit('EVENT_RETENTION_SECONDS', env.EVENT_RETENTION_SECONDS, 30 * 24 * 3600),
      concurrency: parseLimit('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 10),
      inFlightPerTenant: parseLimit('WEBHOOK_IN_FLIGHT_PER_TENANT', env.WEBHOOK_IN_FLIGHT_PER_TENANT, 4),
    },
    quoteValidDays: parseQuoteValidDays(env.QUOTE_VALID_DAYS),
    policyRules: parsePolicyRules(env),
    audit: {
      reads: parseBoolean('AUDIT_READS', env.AUDIT_READS, false),
      retentionDays: parseLimit('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, 400),
      sealSeconds: parseBudget('AUDIT_SEAL_SECONDS', env.AUDIT_SEAL_SECONDS, 2),
    },
  };
  // Renamed when delivery's share moved from the tree to the tenant (issue 37): a deploy that still
  // sets the old name would otherwise run with a cap it did not choose.
  if (env.WEBHOOK_IN_FLIGHT_PER_TREE !== undefined) {
    throw new ConfigError('WEBHOOK_IN_FLIGHT_PER_TREE was replaced by WEBHOOK_IN_FLIGHT_PER_TENANT (attempts in flight for one tenant)');
  }
  if (config.graphql.trustedDocumentsOnly && !config.graphql.trustedDocuments) {
    throw new ConfigError('GRAPHQL_TRUSTED_DOCUMENTS_ONLY=true needs GRAPHQL_TRUSTED_DOCUMENTS (the manifest of the documents to run)');
  }
  const { http } = config.limits;
  // Node checks the headers timeout only within the request timeout.
  if (http.headersTimeoutSeconds > http.requestTimeoutSeconds) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  if (config.env === 'production') {
    const { secret, publicKey, jwksUrl } = config.jwt;
    if (!secret && !publicKey && !jwksUrl) {
      throw new ConfigError('NODE_ENV=production needs JWT_SECRET, JWT_PUBLIC_KEY or JWKS_URL to verify tokens');
    }
    if (!config.dataEncryptionKey) {
      throw new ConfigError('NODE_ENV=production needs DATA_ENCRYPTION_KEY (32 random bytes, base64)');
    }
    // An identity provider signs tokens for many services: without both checks, a token it
    // issued for another API (or another issuer sharing the keys) would be accepted here.
    if ((publicKey || jwksUrl) && (!config.jwt.audience || !config.jwt.issuer)) {
      throw new ConfigError('NODE_ENV=production with JWT_PUBLIC_KEY or JWKS_URL needs JWT_AUDIENCE and JWT_ISSUER');
    }
    // Over plain http, whoever can tamper with that connection serves the key set and signs
    // tokens for any sub and org.
    if (jwksUrl && jwksUrl.protocol !== 'https:') {
      throw new ConfigError('NODE_ENV=production needs an https JWKS_URL (over http anyone on the path could serve keys and forge tokens)');
    }
    // `true` trusts every hop: any client then picks its own address, and its rate limits, by
    // sending X-Forwarded-For.
    if (config.trustProxy === true) {
      throw new ConfigError(
        'NODE_ENV=production refuses TRUST_PROXY=true (any client could choose its address): give the number of proxies or their addresses',
      );
    }
    // The embedded PostgreSQL (user postgres/postgres, no backups, data in the container) is
    // for development; in production it would start silently and lose its data on a restart.
    if (!config.databaseUrl) {
      throw new ConfigError('NODE_ENV=production needs DATABASE_URL (the embedded PostgreSQL is for development only)');
    }
  }
  return config;
}

/** True when no verification key is configured: the development secret under `.data/` is used. */
export function usesDevelopmentSecret(config: Config): boolean {
  const { secret, publicKey, jwksUrl } = config.jwt;
  return !secret && !publicKey && !jwksUrl;
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 4000;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535 (got "${value}")`);
  }
  return port;
}

/**
 * Beyond this many workers something is wrong: each is a whole service (about 140 MB, and up
 * to 18 PostgreSQL connections, docs/operating.md "Operating it"), and a typo such as 200 for 20 should stop
 * start-up rather than fork them.
 */
export const MAX_WEB_CONCURRENCY = 64;

/** Default: one worker per core this process may run on (os.availableParallelism()). */
function parseWebConcurrency(value: string | undefined): number {
  if (value === undefined || value === '') return Math.min(availableParallelism(), MAX_WEB_CONCURRENCY);
  if (!/^[1-9][0-9]*$/.test(value) || Number(value) > MAX_WEB_CONCURRENCY) {
    throw new ConfigError(`WEB_CONCURRENCY must be an integer from 1 to ${MAX_WEB_CONCURRENCY} (got "${value}")`);
  }
  return Number(value);
}

function parseDatabaseUrl(name: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be a postgres:// URL`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`${name} must be a postgres:// URL`);
  }
  return value;
}

/**
 * QUOTE_VALID_DAYS: 1 to 3650. The bound keeps `now() + days` a real timestamp: a typo of
 * nine digits would make every quote's insert fail.
 */
function parseQuoteValidDays(value: string | undefined): number {
  const days = parseLimit('QUOTE_VALID_DAYS', value, 30);
  if (days > 3650) throw new ConfigError(`QUOTE_VALID_DAYS must be at most 3650 (got "${value}")`);
  return days;
}

/**
 * The cancellation and renewal rules: days from 0 (0: free look only on the first day;
 * reinstatement only on the day it took effect; renewal only from the expirationDate on) to
 * 3650, the fee a whole percentage from 0 (none) to 100.
 */
function parsePolicyRules(env: NodeJS.ProcessEnv): PolicyRules {
  const bounded = (name: string, value: string | undefined, fallback: number, max: number) => {
    const parsed = parseBudget(name, value, fallback);
    if (parsed > max) throw new ConfigError(`${name} must be at most ${max} (got "${value}")`);
    return parsed;
  };
  return {
    freeLookDays: bounded('POLICY_FREE_LOOK_DAYS', env.POLICY_FREE_LOOK_DAYS, 15, 3650),
    shortRatePercent: bounded('POLICY_SHORT_RATE_PERCENT', env.POLICY_SHORT_RATE_PERCENT, 10, 100),
    reinstatementDays: bounded('POLICY_REINSTATEMENT_DAYS', env.POLICY_REINSTATEMENT_DAYS, 30, 3650),
    renewalWindowDays: bounded('POLICY_RENEWAL_WINDOW_DAYS', env.POLICY_RENEWAL_WINDOW_DAYS, 60, 3650),
    renewalLateDays: bounded('POLICY_RENEWAL_LATE_DAYS', env.POLICY_RENEWAL_LATE_DAYS, 30, 3650),
    maxCharges: parseMaxCharges(env.POLICY_MAX_CHARGES),
    billingGraceDays: bounded('BILLING_GRACE_DAYS', env.BILLING_GRACE_DAYS, 15, 3650),
    billingLapseDays: bounded('BILLING_LAPSE_DAYS', env.BILLING_LAPSE_DAYS, 0, 3650),
    billingSweepSeconds: parseBudget('BILLING_SWEEP_SECONDS', env.BILLING_SWEEP_SECONDS, 3600),
  };
}

/**
 * POLICY_MAX_CHARGES (1,000): from 185, the longest schedule (61 periods) with room for a
 * cancellation (62 lines) and its reinstatement, so that every new policy can be cancelled and
 * reinstated; to 1,000, MAX_LEDGER_CHARGES (policies/ledger/ledger-room.ts), the length reads and the
 * cost meter count a ledger at most. Numbers, not imports: config sits below every feature.
 */
function parseMaxCharges(value: string | undefined): number {
  const parsed = parseLimit('POLICY_MAX_CHARGES', value, 1000);
  if (parsed < 185 || parsed > 1000) throw new ConfigError(`POLICY_MAX_CHARGES must be from 185 to 1000 (got "${value}")`);
  return parsed;
}

function parseLimit(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^[1-9][0-9]{0,8}$/.test(value)) throw new ConfigError(`${name} must be a positive integer (got "${value}")`);
  return Number(value);
}

/** A non-negative integer where 0 means "off". */
function parseBudget(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^(0|[1-9][0-9]{0,8})$/.test(value)) throw new ConfigError(`${name} must be 0 (off) or a positive integer (got "${value}")`);
  return Number(value);
}

function parseCallerLimits(env: NodeJS.ProcessEnv): CallerLimits {
  const deadline = parseLimit('REQUEST_DEADLINE_SECONDS', env.REQUEST_DEADLINE_SECONDS, 10);
  // Quotas are off unless configured; 0 is off too, as for the rate limits.
  const optional = (name: string) => parseBudget(name, env[name], 0) || null;
  return {
    requestsPerMinute: parseBudget('RATE_LIMIT_REQUESTS_PER_MINUTE', env.RATE_LIMIT_REQUESTS_PER_MINUTE, 6000),
    createsPerMinute: parseBudget('RATE_LIMIT_CREATES_PER_MINUTE', env.RATE_LIMIT_CREATES_PER_MINUTE, 600),
    graphqlCostPerMinute: parseBudget('RATE_LIMIT_GRAPHQL_COST_PER_MINUTE', env.RATE_LIMIT_GRAPHQL_COST_PER_MINUTE, 200_000),
    anonymousPerMinute: parseBudget('RATE_LIMIT_ANONYMOUS_PER_MINUTE', env.RATE_LIMIT_ANONYMOUS_PER_MINUTE, 600),
    windowSeconds: parseLimit('RATE_LIMIT_WINDOW_SECONDS', env.RATE_LIMIT_WINDOW_SECONDS, 60),
    concurrentRequests: parseBudget('RATE_LIMIT_CONCURRENT_REQUESTS', env.RATE_LIMIT_CONCURRENT_REQUESTS, 16),
    requestDeadlineSeconds: deadline,
    statementTimeoutSeconds: parseLimit('DATABASE_STATEMENT_TIMEOUT_SECONDS', env.DATABASE_STATEMENT_TIMEOUT_SECONDS, deadline),
    responseMaxBytes: parseLimit('RESPONSE_MAX_BYTES', env.RESPONSE_MAX_BYTES, 5 * 1024 * 1024),
    idempotencyKeptResponseMaxBytes: parseLimit('IDEMPOTENCY_KEPT_RESPONSE_MAX_BYTES', env.IDEMPOTENCY_KEPT_RESPONSE_MAX_BYTES, 64 * 1024),
    http: {
      headersTimeoutSeconds: parseLimit('HTTP_HEADERS_TIMEOUT_SECONDS', env.HTTP_HEADERS_TIMEOUT_SECONDS, 10),
      requestTimeoutSeconds: parseLimit('HTTP_REQUEST_TIMEOUT_SECONDS', env.HTTP_REQUEST_TIMEOUT_SECONDS, 30),
      keepAliveTimeoutSeconds: parseLimit('HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', env.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS, 5),
      maxConnections: parseLimit('HTTP_MAX_CONNECTIONS', env.HTTP_MAX_CONNECTIONS, 1000),
      maxConnectionsPerAddress: parseLimit('MAX_CONNECTIONS_PER_ADDRESS', env.MAX_CONNECTIONS_PER_ADDRESS, 100),
    },
    quotas: {
      organizationsPerTree: optional('QUOTA_ORGANIZATIONS_PER_TREE'),
      policiesPerTree: optional('QUOTA_POLICIES_PER_TREE'),
      // On by default (contract section 12): each endpoint multiplies every event of its subtree.
      webhookEndpointsPerTree: parseBudget('WEBHOOK_ENDPOINTS_PER_TREE', env.WEBHOOK_ENDPOINTS_PER_TREE, 25) || null,
      // On by default too: webhook delivery is shared by tenant, and a tenant is a sub's roots.
      rootsPerSub: parseBudget('ORGANIZATION_ROOTS_PER_SUB', env.ORGANIZATION_ROOTS_PER_SUB, 25) || null,
    },
    organizationMaxDepth: parseLimit('ORGANIZATION_MAX_DEPTH', env.ORGANIZATION_MAX_DEPTH, 32),
  };
}

/** Express's named ranges (proxy-addr): 127.0.0.0/8 and ::1, 169.254/16 and fe80::/10, the private ranges and fc00::/7. */
const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * Express's `trust proxy` values: `true`/`false`, a number of hops, or a comma-separated list of
 * addresses, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the names above. Each item is checked
 * here, so a typo stops start-up rather than Express's first request.
 */
function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^[0-9]{1,2}$/.test(value)) return Number(value);
  const items = value.split(',').map((item) => item.trim());
  const bad = items.find((item) => !TRUST_PROXY_NAMES.includes(item) && !isAddressOrRange(item));
  if (bad === undefined) return items.join(',');
  throw new ConfigError(
    `TRUST_PROXY must be true, false, a number of proxies or a list of addresses, CIDR ranges, loopback, linklocal or uniquelocal (got "${bad}")`,
  );
}

function isAddressOrRange(item: string): boolean {
  const [address, prefix, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(`${name} must be true or false (got "${value}")`);
}

function parseChoice<T extends string>(name: string, value: string | undefined, choices: T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if (!choices.includes(value as T)) throw new ConfigError(`${name} must be one of ${choices.join(', ')} (got "${value}")`);
  return value as T;
}

function parseMetricsToken(value: string | undefined): string | undefined {
  if (!value) return undefined;
  // A scraper's credential, compared in constant time; short ones are guessable.
  if (value.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters long');
  return value;
}

/**
 * Comma-separated GraphQL names of at most 100 characters (the access line and the metrics keep a
 * name that long): anything else could never match an operation, so it is a typo to stop on.
 */
function parseOperationNames(value: string | undefined): string[] {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const wrong = names.find((name) => !/^[_A-Za-z][_0-9A-Za-z]{0,99}$/.test(name));
  if (wrong !== undefined) {
    throw new ConfigError(`METRICS_OPERATION_NAMES must list GraphQL operation names separated by commas (got "${wrong}")`);
  }
  return names;
}

function parseSecret(value: string | undefined): Uint8Array | undefined {
  if (!value) return undefined;
  const bytes = new TextEncoder().encode(value);
  // HS256 with fewer than 256 bits of key is brute-forceable (RFC 7518 section 3.2).
  if (bytes.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 bytes long');
  return bytes;
}

function parsePublicKey(value: string | undefined): Config['jwt']['publicKey'] {
  if (!value) return undefined;
  let key: KeyObject;
  try {
    // Environment files often carry PEM with literal "\n".
    key = createPublicKey(value.replace(/\\n/g, '\n'));
  } catch {
    throw new ConfigError('JWT_PUBLIC_KEY must be a PEM public key (RSA, EC P-256 or Ed25519)');
  }
  const algorithms = algorithmsForKey(key);
  if (!algorithms) {
    throw new ConfigError('JWT_PUBLIC_KEY must be an RSA, EC P-256 or Ed25519 public key');
  }
  return { key, algorithms };
}

/** The allow-list of JWS algorithms per key type: a token's `alg` must match its key. */
export function algorithmsForKey(key: KeyObject): string[] | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return ['RS256', 'PS256'];
    case 'rsa-pss':
      return ['PS256'];
    case 'ec':
      return key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? ['ES256'] : undefined;
    case 'ed25519':
      return ['EdDSA'];
    default:
      return undefined;
  }
}

function parseJwksUrl(value: string | undefined): URL | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url;
  } catch {
    // fall through to the error below
  }
  throw new ConfigError('JWKS_URL must be an http(s) URL');
}

function parseEncryptionKey(name: string, value: string | undefined): Buffer | undefined {
  if (!value) return undefined;
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== value.replace(/=+$/, '')) {
    throw new ConfigError(`${name} must be 32 random bytes, base64-encoded${name.endsWith('KEYS') ? ' (comma-separated)' : ''}`);
  }
  return key;
}

/** `CORS_ORIGINS`: `*`, or a comma-separated list of exact origins (scheme://host[:port]). */
function parseCorsOrigins(value: string | undefined, nodeEnv: string): Config['corsOrigins'] {
  if (value === undefined || value.trim() === '') return nodeEnv === 'production' ? [] : 'localhost';
  if (value.trim() === '*') return '*';
  return value.split(',').map((item) => {
    const origin = item.trim();
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new ConfigError(`CORS_ORIGINS must list origins like https://app.example.com (got "${origin}")`);
    }
    if (url.origin !== origin || !['http:', 'https:'].includes(url.protocol)) {
      throw new ConfigError(`CORS_ORIGINS must list exact origins, scheme://host[:port] with no path (got "${origin}")`);
    }
    return origin;
  });
}
