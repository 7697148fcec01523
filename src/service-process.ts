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
  // The signals are taken from the first moment: the server listens before startService()
  // returns (webhook delivery starts after it), and a Ctrl-C in that window, or while the
  // embedded PostgreSQL starts, would otherwise end the process at once, dropping requests and
  // leaving that PostgreSQL (in a process group of its own) running. A worker gets SIGTERM from
  // the primary, and in a terminal Ctrl-C's SIGINT as well: the first signal stops it, later
  // ones change nothing.
  const starting = startService(config, logger, { traced: tracing.enabled, clusterWorker: worker });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Whatever happens, do not outlive the 10 s a deploy waits.
    setTimeout(() => process.exit(1), 10_000).unref();
    // Stopped once started; a start that fails is reported (and exits 1) in main.ts.
    const service = await starting.catch(() => undefined);
    if (!service) return;
    await service.stop();
    // The spans of the last requests, sent before the process ends.
    await tracing.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => void stop('SIGHUP'));

  const service = await starting;
  if (stopping) return;
  logger.info({ url: service.url }, 'listening');
  if (config.env !== 'production' && !worker) await printWelcome(config, service.url);
}
