import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';

const tracer = trace.getTracer('org-policy-service');

/** Scrapes and probes every few seconds would bury the requests that matter: not traced. */
const UNTRACED = /^\/(metrics|healthz|readyz)(\?|$)/;

export interface RequestSpan {
  span: Span;
  /** The caller's trace context (`traceparent`) with this span active in it. */
  context: Context;
}

/**
 * The server span of one HTTP request, made by the service itself rather than by patching
 * `node:http` (OpenTelemetry's HTTP instrumentation wrapped every request's emitters and
 * collected generic attributes: 15-25% of a read's CPU, docs/benchmark.md). It continues the
 * caller's W3C `traceparent`, and carries the attributes of OpenTelemetry's HTTP server
 * conventions the service can know without cost. The query string is never recorded: it can
 * carry GraphQL variables. Named `METHOD /route` when the request ends (endRequestSpan).
 *
 * The sampler decides here, once per request, before anything else is made: a request it does
 * not sample gets no span, no context and no listener (undefined), so nothing below it (the
 * operation's span, the statements' spans, the logger's trace ids) does any tracing work. Its
 * webhook deliveries then carry no `traceparent` either: the receiver starts its own trace.
 */
export function startRequestSpan(req: IncomingMessage): RequestSpan | undefined {
  const url = req.url ?? '/';
  if (UNTRACED.test(url)) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const method = req.method ?? 'GET';
  // No attributes yet: the SDK copies and checks a span's start attributes before it asks the sampler.
  const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
  if (!span.isRecording()) return undefined;
  const query = url.indexOf('?');
  span.setAttributes({
    'http.request.method': method,
    'url.path': query === -1 ? url : url.slice(0, query),
    ...(query === -1 ? {} : { 'url.query': '[redacted]' }),
    'network.protocol.version': req.httpVersion,
    'network.peer.address': req.socket.remoteAddress,
    'server.port': req.socket.localPort,
    'user_agent.original': req.headers['user-agent'],
  });
  return { span, context: trace.setSpan(parent, span) };
}

/** Names the span after the route that served it, and ends it; 5xx marks it as an error. */
export function endRequestSpan({ span }: RequestSpan, method: string, route: string, status: number): void {
  span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
  span.updateName(`${method} ${route}`);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** A request the client gave up on before its answer was written. */
export function abandonRequestSpan({ span }: RequestSpan): void {
  span.setAttribute('error.type', 'aborted');
  span.end();
}
