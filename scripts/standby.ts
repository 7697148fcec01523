import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cliOptions } from './cli.js';
import { isAlive } from '../src/database/embedded-postgres.js';
import { embeddedDataDir, embeddedRunner } from '../src/database/embedded-runner.js';
import { removeStandby, startStandby } from '../src/database/embedded-standby.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';

const USAGE = `Runs a streaming read replica of the embedded PostgreSQL that \`npm start\` runs, for
DATABASE_REPLICA_URLS (contract section 17).

Usage: npm run standby [-- --port PORT]
       npm run standby -- --remove

  --port    the replica's port (default: 5433)
  --remove  delete the replica (stopped): its directory, and its replication slot on the primary,
            which keeps the primary's WAL for it until then
  --help    this text

Start the service first (npm start, same DATA_DIR): its embedded PostgreSQL is the primary. The
first run copies it into <DATA_DIR>/standby (a few seconds); Ctrl-C stops the replica and keeps
that directory, and the next run starts it again and catches up. When the service restarts (its
PostgreSQL then has a new port), the replica follows it. LOG_LEVEL=debug shows the replica's own log.`;

const cli = cliOptions<{ port: string; remove?: boolean }>('standby', USAGE, {
  port: { type: 'string', default: '5433' },
  remove: { type: 'boolean' },
});
// Annotated, so that TypeScript narrows after a call (a `never` function must be declared so).
const fail: (reason: string) => never = cli.fail;
const port = Number(cli.values.port);
if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`--port must be a port number, not ${cli.values.port}`);

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
if (config.databaseUrl) fail('DATABASE_URL is set: this script makes a replica of the embedded PostgreSQL only (unset it)');
// The replica's own log lines are `trace` (embedded-postgres.ts); at debug and below they show.
const logger = createLogger(process.env.LOG_LEVEL === 'debug' ? 'trace' : (process.env.LOG_LEVEL ?? 'info'), { format: 'pretty' });
// Where the service keeps them (as root from a checkout the postgres user cannot reach: elsewhere, embedded-runner.ts).
const runner = await embeddedRunner(logger);
const primaryDir = await embeddedDataDir(config.dataDir, 'postgres', runner, logger);
const databaseDir = await embeddedDataDir(config.dataDir, 'standby', runner, logger);

/** The URL of the embedded PostgreSQL running on primaryDir, from its postmaster.pid (pid, directory, start time, port, ..., status). */
async function runningPrimary(): Promise<string | undefined> {
  const lines = (await readFile(join(primaryDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
  const [pid, port, status] = [Number(lines[0]), Number(lines[3]), lines[7]?.trim()];
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || status !== 'ready') return undefined;
  return `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
}

let primaryUrl = await runningPrimary();
if (!primaryUrl) fail(`no embedded PostgreSQL is running in ${primaryDir}: start the service first (npm start, same DATA_DIR)`);
const slot = 'npm_run_standby';
if (cli.values.remove) {
  await removeStandby(primaryUrl, databaseDir, slot);
  console.log(`Removed ${databaseDir} and the slot ${slot}.`);
  process.exit(0);
}
const standby = await startStandby({ primaryUrl, primaryDir, databaseDir, slot, port, logger });
console.log(`A streaming replica of ${primaryUrl} runs on port ${port} (Ctrl-C stops it). Start the service with
  DATABASE_REPLICA_URLS=${standby.url}`);

// A restarted service's PostgreSQL listens on a new port: the replica follows it.
const watch = setInterval(() => {
  void runningPrimary()
    .then(async (url) => {
      if (!url || url === primaryUrl) return;
      primaryUrl = url;
      await standby.follow(url);
      logger.info(`following the primary on ${url}`);
    })
    .catch((error: unknown) => logger.error({ err: error }, 'following the primary'));
}, 2000);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearInterval(watch);
    void standby.stop().then(() => {
      console.log(`Stopped; its data stays in ${standby.databaseDir} for the next run.`);
      process.exit(0);
    });
  });
}
