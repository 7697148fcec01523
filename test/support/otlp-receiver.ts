import { createServer, type Server } from 'node:http';

/** A span as OTLP/JSON carries it, with its attributes flattened to a record. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** The span exactly as it arrived (to search for secrets in everything sent). */
  raw: unknown;
}

export interface OtlpReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter posts to `/v1/traces`). */
  url: string;
  spans: ReceivedSpan[];
  /** Every request body received, as text. */
  bodies: string[];
  /** Resolves with the spans of `traceId` once `ready(spans)` holds (10 s at most). */
  waitForTrace(traceId: string, ready: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}

/**
 * A local OpenTelemetry collector endpoint for the tests: OTLP over HTTP with JSON bodies
 * (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), as the SDK's standard exporter sends them.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      if (req.url === '/v1/traces') {
        const message = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }> };
        for (const resource of message.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) spans.push(received(span));
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    async waitForTrace(traceId, ready) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const trace = spans.filter((span) => span.traceId === traceId);
        if (ready(trace)) return trace;
        if (Date.now() > deadline) throw new Error(`trace ${traceId} incomplete: ${trace.map((span) => span.name).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function received(span: Record<string, unknown>): ReceivedSpan {
  const attributes: ReceivedSpan['attributes'] = {};
  for (const { key, value } of (span.attributes ?? []) as Array<{ key: string; value: OtlpValue }>) {
    attributes[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ??
      value.doubleValue ??
      '';
  }
  return {
    traceId: span.traceId as string,
    spanId: span.spanId as string,
    parentSpanId: (span.parentSpanId as string | undefined) || undefined,
    name: span.name as string,
    kind: span.kind as number,
    attributes,
    raw: span,
  };
}
