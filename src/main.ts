// First: on a Node older than the floor, stop with one line before any other module loads.
import './node-floor.js';
import cluster from 'node:cluster';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig } from './config.js';
import { notGiven, RUNTIME_FLAGS } from './v8-flags.js';

// V8's memory settings that it reads as it goes (v8-flags.ts); those read only at V8's start are
// on npm start's command line and given to the cluster's workers.
for (const flag of notGiven(RUNTIME_FLAGS, process.execArgv)) setFlagsFromString(flag);

// The configuration first (config.ts loads nothing that tracing patches): a bad value stops
// start-up with one line naming the variable, before any worker is forked.
try {
  const config = loadConfig();
  if (cluster.isPrimary && config.webConcurrency > 1) {
    // WEB_CONCURRENCY > 1: this process forks the workers and serves nothing itself.
    const { runPrimary } = await import('./cluster-primary.js');
    await runPrimary(config);
  } else {
    // The service, alone in this process or as a cluster worker. OpenTelemetry's SDK is
    // loaded only when tracing is on (observability/tracing.ts), and started before the
    // service's modules, whose tracers then export from their first span.
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
