import type { ApolloServer } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { CallerLimits, Config } from './config.js';
import type { ApiKeyHashes } from './auth/api-key-hashes.js';
import type { FieldCipher } from './crypto/field-cipher.js';
import type { RequestFingerprints } from './crypto/request-fingerprint.js';
import type { Database } from './database/database.js';
import type { ReadReplicas } from './database/replicas.js';
import { OutageLog } from './errors/outage-log.js';
import { createApolloServer, textExecutor } from './graphql-server/apollo.js';
import { documentRules } from './graphql-server/document-rules.js';
import type { GraphqlCallSettings } from './graphql-server/graphql-route.js';
import { buildServiceSchema } from './graphql-server/schema.js';
import { TrustedDocuments } from './graphql-server/trusted-documents.js';
import { createContextFactory, type RequestContext } from './graphql/context.js';
import { IdempotencyKeys } from './idempotency/idempotency.js';
import { RateLimits } from './limits/rate-limits.js';
import { OperationCore } from './operations/operation-core.js';
import { readCatalogFrom } from './policies/coverage-catalog.js';
import type { LedgerObserver } from './observability/business-metrics.js';

/** What the operation core and the GraphQL executor are made of: the open database and the settings that shape an answer. */
export interface CoreDependencies {
  /** The process's pool and SQL gateway. */
  database: Database;
  /** Read replicas of `database` (contract section 17); none is ReadReplicas.none. */
  replicas: ReadReplicas;
  cipher: FieldCipher;
  fingerprints: RequestFingerprints;
  /** API keys' text and stored hashes (contract section 20): their writes and their authentication. */
  apiKeyHashes: ApiKeyHashes;
  logger: Logger;
  production: boolean;
  graphql: Config['graphql'];
  idempotencyRetentionSeconds: number;
  limits: CallerLimits;
  developerPages: boolean;
  webhookUrls: { publicOnly: boolean };
  quoteValidDays: number;
  policyRules: Config['policyRules'];
  /** Told of every refusal by a budget, with its policy (the metrics count them). */
  rateLimited?: ConstructorParameters<typeof RateLimits>[3];
  /** Told of every committed write to a policy's ledger (the business metrics count them). */
  ledgerWritten?: LedgerObserver;
  /** AUDIT_READS (contract section 21). */
  auditReads?: boolean;
}

/** The settings of CoreDependencies that come from the configuration as they are. */
export function coreSettings(
  config: Config,
): Pick<
  CoreDependencies,
  | 'production'
  | 'graphql'
  | 'idempotencyRetentionSeconds'
  | 'limits'
  | 'developerPages'
  | 'webhookUrls'
  | 'quoteValidDays'
  | 'policyRules'
  | 'auditReads'
> {
  return {
    production: config.env === 'production',
    graphql: config.graphql,
    idempotencyRetentionSeconds: config.idempotencyRetentionSeconds,
    limits: config.limits,
    developerPages: config.developerPages,
    webhookUrls: { publicOnly: config.webhooks.publicUrlsOnly },
    quoteValidDays: config.quoteValidDays,
    policyRules: config.policyRules,
    auditReads: config.audit.reads,
  };
}

/** What a host adapts: the one operation core, and what `/graphql` runs an operation with. */
export interface ServiceCore {
  schema: GraphQLSchema;
  core: OperationCore;
  /** The per-caller budgets: the core charges creates and cost; the host counts requests and holds places in flight. */
  rateLimits: RateLimits;
  /** Started; the host stops it. */
  apollo: ApolloServer<RequestContext>;
  graphql: GraphqlCallSettings;
  /** Refusals for a lost database, logged once per interval; the host flushes it when it stops. */
  outage: OutageLog;
}

/**
 * The operation core beneath both hosts, and what it runs GraphQL with (the schema, the
 * document rules, Apollo Server for texts, the trusted documents), with nothing of Express: the
 * HTTP service (app.ts) adapts it, and so do the in-process tests (test/support/in-process.ts).
 */
export async function createServiceCore(deps: CoreDependencies): Promise<ServiceCore> {
  const { limits, graphql } = deps;
  const schema = await buildServiceSchema({ auditReads: deps.auditReads });
  const outage = new OutageLog(deps.logger);
  const createContext = createContextFactory({ ...deps, outage, deadlineSeconds: limits.requestDeadlineSeconds });
  // A body's coverageSlug is judged with its other rules, against the catalog (policies/coverage-catalog.ts).
  readCatalogFrom(deps.database);
  const rateLimits = new RateLimits(limits, deps.database, deps.logger, deps.rateLimited);
  const idempotency = new IdempotencyKeys({
    fingerprints: deps.fingerprints,
    cipher: deps.cipher,
    retentionSeconds: deps.idempotencyRetentionSeconds,
    keptResponseMaxBytes: limits.idempotencyKeptResponseMaxBytes,
    // A claim outlives the request's deadline and its last statement; after that (a crash), a
    // retry takes the key over.
    claimSeconds: limits.requestDeadlineSeconds + limits.statementTimeoutSeconds + 5,
  });
  // One set of rules and checks for every document: sent as text (Apollo) or trusted (operation-checks.ts).
  const rules = documentRules(graphql.limits, deps.production);
  const checks = { anonymousIntrospection: deps.developerPages, maxCost: graphql.limits.cost };
  const apollo = createApolloServer(schema, {
    introspection: graphql.introspection,
    limits: graphql.limits,
    developerPages: deps.developerPages,
    rules,
    checks,
  });
  const trustedDocuments = graphql.trustedDocuments
    ? TrustedDocuments.load(graphql.trustedDocuments, schema, rules.all, graphql.trustedDocumentsOnly)
    : TrustedDocuments.none();
  if (graphql.trustedDocuments)
    deps.logger.info({ documents: trustedDocuments.size, only: graphql.trustedDocumentsOnly }, 'trusted documents loaded');
  await apollo.start();
  // One operation core beneath both hosts: deadline, in-flight slot, response cap, budgets, idempotency, errors.
  const core = new OperationCore({
    createContext,
    limits: rateLimits,
    idempotency,
    responseMaxBytes: limits.responseMaxBytes,
    maxCost: graphql.limits.cost,
    database: deps.database,
    replicas: deps.replicas,
  });
  return {
    schema,
    core,
    rateLimits,
    apollo,
    graphql: { schema, checks, developerPages: deps.developerPages, trustedDocuments, executeText: textExecutor(apollo) },
    outage,
  };
}
