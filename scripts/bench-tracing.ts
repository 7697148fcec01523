import type { IncomingMessage } from 'node:http';
import { startRequestSpan } from '../src/observability/request-span.js';
import { startTracing } from '../src/observability/tracing.js';
import { microsPerCall } from './microbenchmark.js';

/**
 * What tracing costs a request it does not sample, in this process (the bench prints it beside
 * the observability rows, whose paired throughput moves by more than this from round to round):
 * the whole of `startRequestSpan` under `always_off`, a million times after a warm-up, with the
 * headers of the bench's REST read. Prints JSON: microseconds per request.
 */
// The SDK reads the sampler from process.env itself, as it does in the service.
Object.assign(process.env, { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'always_off' });
const tracing = startTracing(process.env);
const request = {
  url: '/api/v1/policy/4242',
  method: 'GET',
  httpVersion: '1.1',
  headers: { host: '127.0.0.1:3000', authorization: `Bearer ${'x'.repeat(600)}`, accept: 'application/json' },
  socket: { remoteAddress: '127.0.0.1', localPort: 3000 },
} as unknown as IncomingMessage;
let made = 0;
const unsampled = microsPerCall(() => {
  if (startRequestSpan(request)) made += 1;
}, 1_000_000);
if (made > 0) throw new Error(`always_off sampled ${made} requests`);
console.log(JSON.stringify({ unsampled }));
await tracing.shutdown();
process.exit(0);
