import { NodeSDK } from '@opentelemetry/sdk-node';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

export interface Tracing {
  enabled: boolean;
  /** Exports what is left and stops; resolves even when the collector is away. */
  shutdown(): Promise<void>;
}

/**
 * Whether the standard variables ask for traces (spec section 13): an OTLP endpoint, or an
 * exporter named in OTEL_TRACES_EXPORTER other than `none`; OTEL_SDK_DISABLED=true wins.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  if (exporters.length > 0) return !exporters.includes('none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * OpenTelemetry's Node SDK, configured by the standard `OTEL_*` variables (exporter, protocol,
 * endpoint, headers, sampler, service name, resource attributes). Started before the service's
 * modules load (main.ts), because the instrumentations patch `http`, `pg` and `graphql` as they
 * are required. Off, nothing is loaded but this module, and nothing is patched.
 *
 * Spans: one per HTTP request (the query string is never recorded: it can carry GraphQL
 * variables), one per GraphQL parse, validation and execution (no span per field: at a list of
 * fifty policies that would be hundreds of spans per request), one per SQL statement inside a
 * traced piece of work (the job queue's polling is not traced), and one per webhook delivery.
 * SQL is recorded without its values: placeholders stay, literals become `?` (withoutLiterals).
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing {
  if (!tracingRequested(env)) return { enabled: false, shutdown: async () => undefined };
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? 'org-policy-service',
    // Traces only, unless metrics or logs are asked for by name: the SDK would otherwise export
    // OTLP metrics by default, and the HTTP instrumentation record a histogram per request that
    // /metrics (Prometheus) already keeps.
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
    instrumentations: [
      new HttpInstrumentation({
        // Replaced whole rather than by parameter: a GET /graphql carries the operation's variables.
        startIncomingSpanHook: (request) => (request.url?.includes('?') ? { 'url.query': '[redacted]' } : {}),
        // Scrapes and probes every few seconds would bury the requests that matter.
        ignoreIncomingRequestHook: (request) => /^\/(metrics|healthz|readyz)(\?|$)/.test(request.url ?? ''),
        // Outgoing calls are webhook deliveries: their span (delivery.ts) names the host only,
        // since an endpoint's URL can carry a credential in its path or query.
        ignoreOutgoingRequestHook: () => true,
      }),
      new PgInstrumentation({
        requireParentSpan: true,
        enhancedDatabaseReporting: false,
        ignoreConnectSpans: true,
        // MikroORM sends its inserts with the values written into the SQL (a name, a tax id).
        requestHook: (span, { query }) => span.setAttribute('db.query.text', withoutLiterals(query.text)),
      }),
      new GraphQLInstrumentation({ ignoreResolveSpans: true, ignoreTrivialResolveSpans: true, depth: 0, allowValues: false, mergeItems: true }),
    ],
  });
  sdk.start();
  return {
    enabled: true,
    shutdown: () => sdk.shutdown().catch(() => undefined),
  };
}

/**
 * SQL with every literal replaced by `?`, as OpenTelemetry's conventions ask of `db.query.text`:
 * quoted strings (with `''` inside), and numbers that are not part of a name or a `$n`.
 */
export function withoutLiterals(sql: string): string {
  return sql.replace(/(?:[eE])?'(?:[^']|'')*'/g, '?').replace(/(?<![\w$.])-?\d+(?:\.\d+)?(?![\w.])/g, '?');
}
