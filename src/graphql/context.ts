import type { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import type { Database, Gateway } from '../database/database.js';
import type { ReadReplicas } from '../database/replicas.js';
import type { Authentication, RequestAuthentication } from '../auth/authenticate.js';
import type { Principal } from '../auth/principal.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import { Deadline } from '../limits/deadline.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import type { ApiKeyHashes } from '../auth/api-key-hashes.js';
import type { OutageLog } from '../errors/outage-log.js';
import type { OperationOutcome } from '../observability/metrics.js';
import type { LedgerObserver } from '../observability/business-metrics.js';
import type { PolicyRules } from '../config.js';
import { RequestBatches, type Batch } from './batch.js';
import { UNMETERED, type CostMeter } from './cost-meter.js';
import type { RequestOrigin } from '../outbox/audit-entry.js';
import { ReadAudit } from './read-audit.js';

/** What every resolver sees; built the same way for GraphQL and REST requests. */
export interface RequestContext {
  requestId: string;
  /** The request's id, client address and User-Agent: what an audit entry records of it (contract section 21). */
  readonly origin: RequestOrigin;
  /** With AUDIT_READS on: the policies and organizations a query returns, for its read entries (graphql/read-audit.ts). */
  readonly readAudit?: ReadAudit;
  principal: Principal | null;
  /** The principal, or the 401 to raise when the operation needs one and there is none. */
  authentication: Authentication;
  /**
   * The SQL gateway every statement goes through (database/database.ts): the primary's, or once
   * `readsOnly()` has been called, the replica this caller's reads may use (contract section 17).
   */
  readonly db: Gateway;
  /** The operation only reads (a REST GET, a GraphQL query): its statements may go to a replica. */
  readsOnly(): void;
  /**
   * The value of `key` in a feature's batch (graphql/batch.ts): the loads of one tick become one
   * statement. Batches apply the access rule; only for requests with a principal.
   */
  load<K, V>(batch: Batch<K, V>, key: K): Promise<V>;
  cipher: FieldCipher;
  /** API keys' text and stored hashes (contract section 20). */
  apiKeyHashes: ApiKeyHashes;
  /** Webhook URLs: only https to public addresses (spec section 11; production by default). */
  webhookUrls: { publicOnly: boolean };
  /** QUOTE_VALID_DAYS: how long a new quote can be issued (contract section 14). */
  quoteValidDays: number;
  /** POLICY_FREE_LOOK_DAYS, POLICY_SHORT_RATE_PERCENT, POLICY_REINSTATEMENT_DAYS, POLICY_RENEWAL_WINDOW_DAYS (contract section 14). */
  policyRules: PolicyRules;
  /** Told of each committed write to a policy's ledger (the business metrics); unset, nothing is. */
  readonly ledgerWritten?: LedgerObserver;
  logger: Logger;
  /** Counts the answers refused for a lost database, logged once per interval (errors/outage-log.ts). */
  readonly outage: OutageLog;
  deadline: Deadline;
  /** Set while an Idempotency-Key is claimed: creates mark it in their own transaction. */
  idempotency?: IdempotencyRecorder;
  /** What the `/graphql` access line says of the operation (spec section 13), filled as it runs. */
  operation: OperationOutcome;
  /**
   * The errors Apollo Server's pipeline met for a text document, as raised (its plugin records
   * them; Apollo's copy of the context shares this list): the operation core answers from these.
   */
  readonly errorsMet: GraphQLError[];
  /** What is left of the operation's cost limit as it reads (graphql/cost-meter.ts): set by the operation core and the checks; else unmetered. */
  cost: CostMeter;
  /** Charges the caller's per-minute budgets (GraphQL cost, creates); throws 429 when over. */
  spend: {
    graphqlCost(cost: number): Promise<void>;
    creates(count: number): Promise<void>;
  };
}

/** A request's context once it is known to have a principal (every REST route's). */
export type AuthenticatedContext = RequestContext & { readonly principal: Principal };

/** Narrows a context to one with a principal, or throws the request's 401. */
export function assertAuthenticated(context: RequestContext): asserts context is AuthenticatedContext {
  callerOf(context);
}

/** The caller, or the request's 401 thrown: for what runs only with a principal. */
export function callerOf(context: Pick<RequestContext, 'authentication'>): Principal {
  const { authentication } = context;
  if (authentication.principal === null) throw authentication.failure;
  return authentication.principal;
}

export interface ContextDependencies {
  database: Database;
  /** Read replicas (none: every statement on `database`). */
  replicas: ReadReplicas;
  cipher: FieldCipher;
  apiKeyHashes: ApiKeyHashes;
  webhookUrls: { publicOnly: boolean };
  quoteValidDays: number;
  policyRules: PolicyRules;
  /** Told of each committed write to a policy's ledger (the business metrics). */
  ledgerWritten?: LedgerObserver;
  logger: Logger;
  /** The process's one outage log: the refusals of every request count in it. */
  outage: OutageLog;
  deadlineSeconds: number;
  /** AUDIT_READS: each request collects what it reads (graphql/read-audit.ts). */
  auditReads?: boolean;
}

export interface RequestFacts<A extends RequestAuthentication = RequestAuthentication> {
  requestId: string;
  /** The client's address (as Express judges it) and User-Agent, for the audit log. */
  client?: RequestClient;
  /** When the request arrived (performance.now()): its deadline counts from then. */
  startedAt?: number;
  authentication: A;
  spend: RequestContext['spend'];
  /** Where the operation's name and type are written for the access line (else a throwaway). */
  operation?: OperationOutcome;
  /** The Consistency-Token the request sent (a WAL position): its reads see at least that write. */
  consistencyToken?: bigint;
}

/** What the host knows of the client: its address and its User-Agent header. */
export interface RequestClient {
  ip: string | null;
  userAgent: string | null;
}

/** A context whose principal is as known as its authentication's: a REST route's, narrowed to one with a principal, gets an AuthenticatedContext. */
export type ContextFactory = <A extends RequestAuthentication>(
  request: RequestFacts<A>,
) => RequestContext & { readonly principal: A['principal'] };

export function createContextFactory(deps: ContextDependencies): ContextFactory {
  // RequestScope's principal is its authentication's, so the narrower type holds.
  return <A extends RequestAuthentication>({
    requestId,
    client,
    startedAt,
    authentication,
    spend,
    operation = {},
    consistencyToken,
  }: RequestFacts<A>) =>
    new RequestScope(
      deps,
      requestId,
      { requestId, ip: client?.ip ?? null, userAgent: client?.userAgent ?? null },
      authentication,
      new Deadline(deps.deadlineSeconds, startedAt),
      spend,
      operation,
      consistencyToken,
    );
}

/**
 * The batch loaders and the child logger are made on first use: a simple read needs neither, and
 * each costs on the hot path. They are a method and a getter of the class, not of each object:
 * Apollo Server copies the context of every request with `Object.assign`, which would call
 * getters of the object itself and make both for every GraphQL request.
 */
class RequestScope implements RequestContext {
  readonly principal: Principal | null;
  readonly cipher: FieldCipher;
  readonly apiKeyHashes: ApiKeyHashes;
  readonly webhookUrls: { publicOnly: boolean };
  readonly quoteValidDays: number;
  readonly policyRules: PolicyRules;
  readonly ledgerWritten?: LedgerObserver;
  readonly outage: OutageLog;
  readonly readAudit?: ReadAudit;
  idempotency?: IdempotencyRecorder;
  readonly errorsMet: GraphQLError[] = [];
  cost: CostMeter = UNMETERED;
  private batches?: RequestBatches;
  private requestLogger?: Logger;
  private reading = false;
  private reads?: Gateway;

  constructor(
    private readonly deps: ContextDependencies,
    readonly requestId: string,
    readonly origin: RequestOrigin,
    readonly authentication: RequestAuthentication,
    readonly deadline: Deadline,
    readonly spend: RequestContext['spend'],
    readonly operation: OperationOutcome,
    private readonly consistencyToken?: bigint,
  ) {
    this.principal = authentication.principal;
    this.cipher = deps.cipher;
    this.apiKeyHashes = deps.apiKeyHashes;
    this.webhookUrls = deps.webhookUrls;
    this.quoteValidDays = deps.quoteValidDays;
    this.policyRules = deps.policyRules;
    this.ledgerWritten = deps.ledgerWritten;
    this.outage = deps.outage;
    if (deps.auditReads) this.readAudit = new ReadAudit();
  }

  get db(): Gateway {
    if (!this.reading) return this.deps.database;
    return (this.reads ??= this.deps.replicas.reader({ sub: this.principal?.sub, token: this.consistencyToken }));
  }

  readsOnly(): void {
    this.reading = true;
  }

  load<K, V>(batch: Batch<K, V>, key: K): Promise<V> {
    this.batches ??= new RequestBatches({ db: this.db, deadline: this.deadline, principal: () => callerOf(this) });
    return this.batches.load(batch, key);
  }

  get logger(): Logger {
    return (this.requestLogger ??= this.deps.logger.child({ requestId: this.requestId, sub: this.principal?.sub }));
  }
}
