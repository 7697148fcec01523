// First: on a Node older than the floor, stop with one line before any other module loads.
import './node-floor.js';
import cluster from 'node:cluster';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig } from './config.js';

// V8 lets the old generation grow to about four times what survived its last full collection
// before collecting again; under load that took a process from 120 MB at rest to 300 MB. Growing
// by 60% keeps it under 200 MB for about 5% of the throughput (docs/benchmark.md). The flag is read
// at each collection, so setting it here works, and NODE_OPTIONS cannot carry it; a
// --heap-growing-percent given on the command line wins.
if (!process.execArgv.some((flag) => flag.startsWith('--heap-growing-percent'))) setFlagsFromString('--heap-growing-percent=60');

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
