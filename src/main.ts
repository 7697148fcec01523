import cluster from 'node:cluster';
import { ConfigError, loadConfig } from './config.js';

// The configuration first (config.ts loads nothing that tracing patches): a bad value stops
// start-up with one line naming the variable, before any worker is forked.
try {
  const config = loadConfig();
  if (cluster.isPrimary && config.webConcurrency > 1) {
    // WEB_CONCURRENCY > 1: this process forks the workers and serves nothing itself.
    const { runPrimary } = await import('./cluster-primary.js');
    await runPrimary(config);
  } else {
    // The service, alone in this process or as a cluster worker. OpenTelemetry's
    // instrumentations patch `http`, `pg` and `graphql` as they are required, so tracing
    // starts before any module of the service loads; the service is imported after it.
    const { startTracing } = await import('./observability/tracing.js');
    const tracing = startTracing();
    const { runService } = await import('./service-process.js');
    await runService(config, tracing, { worker: cluster.isWorker });
  }
} catch (error) {
  if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
  else console.error('Start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
}
