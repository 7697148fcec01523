import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { REPLICA_STATES, type ReplicaStatus } from '../database/replicas.js';
import { ANSWERED_CODES } from '../errors/safe-errors.js';
import { DeclaredLabels } from './declared-labels.js';
import { instanceScrape } from './cluster-metrics.js';
import { BusinessMetrics, type LedgerEntry } from './business-metrics.js';

/** The methods Express routes; anything else is counted as `OTHER`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface PoolState {
  inUse: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

/**
 * What a `/graphql` request's access line and metrics know of its operation: its name and type,
 * written as Apollo resolves it, and the error codes answered (request-lifecycle.ts).
 */
export interface OperationOutcome {
  operationName?: string | null;
  operationType?: string;
  codes?: readonly string[];
}

/**
 * The service's Prometheus series (spec section 13), in a registry of its own (a test process
 * runs several services). Every label takes values from a bounded set: routes are Express's
 * patterns, never paths; operation names and error codes are the declared ones
 * (`DeclaredLabels`). Nothing a caller sends becomes a label value any other way.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly operations: Counter<'operation_name' | 'operation_type'>;
  private readonly operationErrors: Counter<'operation_name' | 'code'>;
  private readonly rateLimited: Counter<'limit'>;
  private readonly deliveries: Counter<'result'>;
  private readonly throttled: Counter;
  private readonly reads: Counter<'target'>;
  private replicas: (() => ReplicaStatus[]) | undefined;
  // Contract section 13: the names declared at start-up (declareOperationNames), every other `(other)`.
  private readonly operationNames = new DeclaredLabels('(other)');
  // The codes an answer can carry (safe-errors.ts): a closed set already, and kept so.
  private readonly codes = new DeclaredLabels('OTHER', ANSWERED_CODES);
  private readonly pools = new Map<string, () => PoolState>();
  private queueDepth: (() => Promise<number>) | undefined;
  /** The text `GET /metrics` answers: this registry's, or in a cluster worker the whole instance's. */
  readonly scrape: () => Promise<string>;
  /** Policies, premium, credits, payments, past due (business-metrics.ts). */
  private readonly business: BusinessMetrics;

  constructor(options: { cluster?: boolean } = {}) {
    this.scrape = options.cluster ? instanceScrape(this.registry) : () => this.registry.metrics();
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request to its answer, by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.operations = new Counter({
      name: 'graphql_operations_total',
      help: 'GraphQL operations on /graphql by name (the declared names: the trusted manifest\'s, the REST documents\' and METRICS_OPERATION_NAMES; any other is "(other)"; "(anonymous)" has none; "(none)" never got as far as an operation) and type.',
      labelNames: ['operation_name', 'operation_type'],
      registers,
    });
    this.operationErrors = new Counter({
      name: 'graphql_operation_errors_total',
      help: 'GraphQL operations on /graphql that answered an error, once per distinct error code.',
      labelNames: ['operation_name', 'code'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'rate_limited_requests_total',
      help: 'Requests refused with 429, by the limit they were over.',
      labelNames: ['limit'],
      registers,
    });
    this.deliveries = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts made by this instance, by result: delivered, retrying (another attempt is scheduled), failed (out of attempts), dropped (endpoint deleted or retry window passed).',
      labelNames: ['result'],
      registers,
    });
    this.throttled = new Counter({
      name: 'webhook_delivery_throttled_total',
      help: 'Webhook delivery jobs this instance put off, no attempt made, because their endpoint was at its rateLimitPerSecond (each tries again later).',
      registers,
    });
    this.reads = new Counter({
      name: 'db_reads_total',
      help: 'Read operations (REST GETs, GraphQL queries) by the server that served them: primary, or "replica <host:port>" (contract section 17).',
      labelNames: ['target'],
      registers,
    });
    // collect() runs with `this` bound to its gauge, so it reaches ours through these.
    const pools = this.pools;
    const replicas = () => this.replicas?.() ?? [];
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'How far each read replica was behind the primary at its last check (contract section 17).',
      labelNames: ['replica'],
      registers,
      // Every worker checks the same replicas: the instance reports the furthest behind.
      aggregator: 'max',
      collect() {
        for (const { name, lagSeconds } of replicas()) if (lagSeconds !== null) this.set({ replica: name }, lagSeconds);
      },
    });
    new Gauge({
      name: 'db_replica_state',
      help: "Each read replica's state: 1 for the one it is in (starting, healthy, lagging: skipped, unreachable: skipped), 0 for the others.",
      labelNames: ['replica', 'state'],
      registers,
      aggregator: 'max',
      collect() {
        for (const { name, state } of replicas()) {
          for (const each of REPLICA_STATES) this.set({ replica: name, state: each }, each === state ? 1 : 0);
        }
      },
    });
    const queueDepth = () => this.queueDepth?.();
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database connections of this instance by pool and state (in_use, idle), and callers waiting for one (waiting).',
      labelNames: ['pool', 'state'],
      registers,
      collect() {
        for (const [pool, read] of pools) {
          const state = read();
          this.set({ pool, state: 'in_use' }, state.inUse);
          this.set({ pool, state: 'idle' }, state.idle);
          this.set({ pool, state: 'waiting' }, state.waiting);
        }
      },
    });
    new Gauge({
      name: 'webhook_delivery_queue_depth',
      help: 'Webhook deliveries not yet delivered nor failed, across all instances (the same number on each).',
      registers,
      // Under node:cluster every worker reads the same count: the instance reports it once.
      aggregator: 'max',
      async collect() {
        const depth = await queueDepth();
        if (depth !== undefined) this.set(depth);
      },
    });
    // Registered after db_pool_connections, as the queue's depth is: a scrape collects the series
    // in this order, and the pool's state is read before a gauge's query takes a connection
    // (which counts as waiting until its next tick).
    this.business = new BusinessMetrics(this.registry);
  }

  /** A read operation's server (database/replicas.ts). */
  observeRead(target: string): void {
    this.reads.inc({ target });
  }

  /** The read replicas whose lag and state `/metrics` shows. */
  watchReplicas(status: () => ReplicaStatus[]): void {
    this.replicas = status;
  }

  /** One answered request; `route` is the Express pattern (or a fixed name), never the path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method: METHODS.has(method) ? method : 'OTHER', route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  /** The operation a `/graphql` request ran (or failed to reach), and the error codes it answered. */
  observeGraphqlOperation(outcome: OperationOutcome): void {
    const name =
      outcome.operationType === undefined
        ? '(none)'
        : outcome.operationName
          ? this.operationNames.label(outcome.operationName)
          : '(anonymous)';
    this.operations.inc({ operation_name: name, operation_type: outcome.operationType ?? '(none)' });
    for (const code of outcome.codes ?? []) this.operationErrors.inc({ operation_name: name, code: this.codes.label(code) });
  }

  /** Operation names with series of their own (contract section 13): the trusted manifest's, the REST documents', METRICS_OPERATION_NAMES. */
  declareOperationNames(names: Iterable<string>): void {
    this.operationNames.declare(names);
  }

  observeRateLimited(limit: string): void {
    this.rateLimited.inc({ limit });
  }

  observeDelivery(result: 'delivered' | 'retrying' | 'failed' | 'dropped'): void {
    this.deliveries.inc({ result });
  }

  /** A delivery job put off by its endpoint's rate limit (delivery-rate-limit.ts). */
  observeDeliveryThrottled(): void {
    this.throttled.inc();
  }

  /** A connection pool to report at each scrape. */
  /** How many statements the service's pool has sent, read at each scrape (`db_statements_total`). */
  watchStatements(read: () => number): void {
    let reported = 0;
    new Counter({
      name: 'db_statements_total',
      help: "SQL statements the service's pool sent to the primary (an API key refused for its checksum sends none).",
      registers: [this.registry],
      collect() {
        const sent = read();
        this.inc(sent - reported);
        reported = sent;
      },
    });
  }

  watchPool(name: string, read: () => PoolState): void {
    this.pools.set(name, read);
  }

  /** How the queue's depth is read at each scrape (by the instance running webhook delivery). */
  watchQueueDepth(read: () => Promise<number>): void {
    this.queueDepth = read;
  }

  /** A ledger write that committed (policies/ledger/ledger-scope.ts: the scope's `observe`). */
  observeLedger(entry: LedgerEntry): void {
    this.business.observe(entry);
  }

  /** How the count of past-due policies is read at each scrape. */
  watchPastDue(read: () => Promise<number>): void {
    this.business.watchPastDue(read);
  }
}
