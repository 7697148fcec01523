import { NodeSDK } from '@opentelemetry/sdk-node';
import { ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace';

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
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (exporters.length > 0) return !exporters.includes('none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * OpenTelemetry's Node SDK, configured by the standard `OTEL_*` variables (exporter, protocol,
 * endpoint, headers, sampler, service name, resource attributes): its tracer provider, context
 * manager, propagators and exporter. Off, nothing is loaded but this module.
 *
 * No instrumentation patches a library: the spans are made at the service's own boundaries,
 * which cost an unsampled request one sampling decision (docs/benchmark.md, "Tracing at the
 * service's boundaries"). One span per HTTP request (observability/request-span.ts), one per
 * GraphQL operation (operation-span.ts; none per field: at a list of fifty policies that would
 * be hundreds per request), one per SQL statement inside a sampled piece of work
 * (database/statement-spans.ts), and one per webhook delivery (webhooks/delivery-attempt.ts).
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing {
  if (!tracingRequested(env)) return { enabled: false, shutdown: async () => undefined };
  const sampler = defaultSampler(env);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? 'org-policy-service',
    // Traces only, unless metrics or logs are asked for by name: the SDK would otherwise export
    // OTLP metrics by default, which /metrics (Prometheus) already serves.
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
    instrumentations: [],
    ...(sampler ? { sampler } : {}),
  });
  sdk.start();
  return {
    enabled: true,
    shutdown: () => sdk.shutdown().catch(() => undefined),
  };
}

/** The share of requests sampled when tracing is on and OTEL_TRACES_SAMPLER is not set (contract section 13). */
export const DEFAULT_SAMPLED_SHARE = 0.1;

/**
 * The sampler when none is set: parent-based, one request in ten (contract section 13), where
 * the SDK's own default samples every request. A caller's `traceparent` decides for its request,
 * so a trace sampled upstream stays whole. OTEL_TRACES_SAMPLER, when set, is the SDK's to read.
 */
export function defaultSampler(env: NodeJS.ProcessEnv): Sampler | undefined {
  if (env.OTEL_TRACES_SAMPLER?.trim()) return undefined;
  return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(DEFAULT_SAMPLED_SHARE) });
}
