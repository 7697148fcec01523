import 'reflect-metadata';
import type { Config } from './config.js';
import { createLogger } from './logger.js';
import type { Tracing } from './observability/tracing.js';
import { startService } from './service.js';
import { printWelcome } from './welcome.js';

export interface ServiceProcessOptions {
  /**
   * A node:cluster worker (WEB_CONCURRENCY > 1): the primary prints the welcome, and `/metrics`
   * reports every worker of the instance. Otherwise the process serves alone.
   */
  worker?: boolean;
}

/** Start-up: database -> app -> listen; SIGTERM/SIGINT/SIGHUP stop it cleanly. */
export async function runService(config: Config, tracing: Tracing, options: ServiceProcessOptions = {}): Promise<void> {
  const worker = options.worker ?? false;
  const logger = createLogger(config.logLevel, { format: config.logFormat, traceIds: tracing.enabled });
  const service = await startService(config, logger, { traced: tracing.enabled, clusterMetrics: worker });
  logger.info({ url: service.url }, 'listening');
  if (config.env !== 'production' && !worker) await printWelcome(config, service.url);

  // A worker gets SIGTERM from the primary, and in a terminal Ctrl-C's SIGINT as well: the
  // first signal stops it, later ones change nothing.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Whatever happens, do not outlive the 10 s a deploy waits.
    setTimeout(() => process.exit(1), 10_000).unref();
    await service.stop();
    // The spans of the last requests, sent before the process ends.
    await tracing.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => void stop('SIGHUP'));
}
