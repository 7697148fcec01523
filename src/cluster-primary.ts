import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { EmbeddedDatabase } from './database/embedded-postgres.js';
import { createLogger } from './logger.js';
import { passOnWrites } from './database/shared-writes.js';
import { answerScrapes } from './observability/cluster-metrics.js';
import { notGiven, START_FLAGS } from './v8-flags.js';
import { printWelcome, serviceUrl } from './welcome.js';

/** The first replacement of a worker that died waits this long; each quick death doubles it. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that ran this long was healthy: the next replacement waits the first delay again. */
const HEALTHY_AFTER_MS = 30_000;
/** The contract's limit for a stop; each worker also has its own (service-process.ts). */
const STOP_DEADLINE_MS = 10_000;

/**
 * WEB_CONCURRENCY > 1: this process is a node:cluster primary. It does the once-per-machine work
 * (the embedded PostgreSQL when DATABASE_URL is unset, migrations, the welcome), then forks the
 * workers, each running the whole service (service-process.ts) on the same port: the primary
 * holds the listening socket and hands each new connection to a worker in turn. It loads no
 * part of the service itself (no schema, Express or entities; MikroORM only to migrate), and
 * answers the workers' `/metrics` requests (cluster-metrics.ts) and passes each worker's writes on
 * to the others, for the read replicas' sticky window (shared-writes.ts).
 *
 * A worker that dies is replaced, after a delay that grows while workers keep dying soon after
 * start. SIGTERM, SIGINT or SIGHUP: each worker drains (stops accepting, finishes what it took)
 * and exits; then the embedded PostgreSQL stops and the primary exits 0, all within 10 s.
 */
export async function runPrimary(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  const count = config.webConcurrency;
  // The signals are taken before anything starts (see `stop` below): a Ctrl-C while the embedded
  // PostgreSQL or the migrations start would otherwise end this process at once and leave that
  // PostgreSQL, in a process group of its own, running.
  let stopRequested: string | undefined;
  let onSignal: (signal: string) => void = (signal) => {
    stopRequested ??= signal;
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => onSignal(signal));

  // Loaded only when used, as in service.ts: production (DATABASE_URL) never runs its code.
  const embedded: EmbeddedDatabase | undefined = config.databaseUrl
    ? undefined
    : await (await import('./database/embedded-postgres.js')).startEmbeddedPostgres(config.dataDir, logger, { ownProcessGroup: true });
  const databaseUrl = config.databaseUrl || embedded?.url;
  if (!databaseUrl) throw new Error('no database: neither DATABASE_URL nor the embedded server');
  try {
    // Once, here: workers starting together would race to apply the same migrations.
    if (config.migrateOnStart) await (await import('./database/migrate.js')).migrateDatabase(databaseUrl, logger);
  } catch (error) {
    await embedded?.stop().catch(() => undefined);
    throw error;
  }
  if (stopRequested) {
    logger.info({ signal: stopRequested }, 'stopped before the workers started');
    await embedded?.stop();
    process.exit(0);
  }
  answerScrapes();
  passOnWrites();

  const workerEnv = { DATABASE_URL: databaseUrl, MIGRATE_ON_START: 'false' };
  const live = new Set<Worker>();
  const startedAt = new Map<Worker, number>();
  const restarts = new Set<NodeJS.Timeout>();
  let restartDelay = RESTART_DELAY_MS;
  let served = false;
  let stopping = false;
  let allStopped: () => void = () => undefined;

  // V8's settings read only at its start (v8-flags.ts), for workers of a `node dist/src/main.js`
  // too; the workers inherit the rest of the primary's command line.
  cluster.setupPrimary({ execArgv: [...process.execArgv, ...notGiven(START_FLAGS, process.execArgv)] });
  const fork = () => {
    const worker = cluster.fork(workerEnv);
    live.add(worker);
    startedAt.set(worker, Date.now());
  };

  cluster.on('online', (worker) => logger.info({ worker: worker.process.pid }, `worker ${worker.process.pid} started`));
  cluster.on('listening', (_worker, address) => {
    if (served) return;
    served = true;
    logger.info({ url: serviceUrl(config.host, address.port), workers: count }, `listening with ${count} workers`);
    if (config.env !== 'production') {
      printWelcome(config, serviceUrl(config.host, address.port)).catch((error) =>
        logger.warn({ err: error }, 'could not print the welcome'),
      );
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const pid = worker.process.pid;
    live.delete(worker);
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) {
      logger.info({ worker: pid, code, signal }, `worker ${pid} stopped`);
      if (live.size === 0) allStopped();
      return;
    }
    if (!served) {
      // Not one worker got as far as listening: the service cannot start (its error is above).
      logger.error({ worker: pid, code, signal }, `worker ${pid} exited before listening: start-up failed`);
      void stop('start-up failed', 1);
      return;
    }
    restartDelay = lived >= HEALTHY_AFTER_MS ? RESTART_DELAY_MS : restartDelay;
    logger.warn({ worker: pid, code, signal, restartInMs: restartDelay }, `worker ${pid} exited, replacing it`);
    const timer = setTimeout(() => {
      restarts.delete(timer);
      fork();
    }, restartDelay);
    restarts.add(timer);
    restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
  });

  const stop = async (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal: reason, workers: live.size }, 'shutting down: draining the workers');
    setTimeout(() => {
      logger.error({ workers: live.size }, 'still stopping at the deadline: killing what is left');
      for (const worker of live) worker.process.kill('SIGKILL');
      // The embedded PostgreSQL is stopped by its `exit` listener.
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    for (const timer of restarts) clearTimeout(timer);
    const stopped = new Promise<void>((resolve) => (allStopped = resolve));
    // A signal of its own, not worker.kill(): that disconnects the worker first, which closes
    // its servers from outside its drain. In a terminal, Ctrl-C has signalled them already.
    for (const worker of live) worker.process.kill('SIGTERM');
    if (live.size > 0) await stopped;
    // Last, once no worker uses it: it runs in a process group of its own, so Ctrl-C's SIGINT
    // to the terminal's group has not stopped it under the draining workers.
    await embedded?.stop();
    logger.info('stopped');
    process.exit(exitCode);
  };
  onSignal = (signal) => void stop(signal);

  // A worker whose primary is gone (even killed with SIGKILL) sees its IPC channel close and
  // exits at once: node:cluster does that in every worker, so none outlives the primary.
  logger.info({ workers: count }, `starting ${count} workers`);
  for (let i = 0; i < count; i++) fork();
}
