import { startTracing } from './observability/tracing.js';

// OpenTelemetry's instrumentations patch `http`, `pg` and `graphql` as they are required, so
// tracing starts before any module of the service loads; the service is imported after it.
const tracing = startTracing();
try {
  const { runService } = await import('./service-process.js');
  await runService(tracing);
} catch (error) {
  console.error('Start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
}
