import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/database/embedded-postgres.js';
import { startStandby, type Standby } from '../../src/database/embedded-standby.js';
import { createLogger } from '../../src/logger.js';

/**
 * A primary with a real streaming hot standby (src/database/embedded-standby.ts), for the tests
 * of read replicas (contract section 17). The primary is an embedded PostgreSQL of its own in a
 * temporary directory, not the run's shared one: a standby copies a whole cluster, and its slot
 * and paused replay must not weigh on the other files' databases.
 */
export interface StandbyPair {
  /** The primary's superuser URL (postgres/postgres, database `postgres`): createTestDatabase(primaryUrl) makes a database on it. */
  readonly primaryUrl: string;
  /** The primary's data directory (another standby of it: startStandby). */
  readonly primaryDir: string;
  /** The standby: pause and resume replay, its replay LSN, wait until replayed, stop and start. */
  readonly standby: Standby;
  /** The database a URL of the primary names, on the standby (every database is replicated, even one made after the copy). */
  onStandby(databaseUrl: string): string;
}

export async function startStandbyPair(): Promise<StandbyPair & { stop(): Promise<void> }> {
  const logger = createLogger('silent');
  const dir = await mkdtemp(join(tmpdir(), 'org-policy-standby-'));
  // As root, PostgreSQL runs as `postgres`, which must reach both data directories.
  await chmod(dir, 0o755);
  const primaryDir = join(dir, 'primary', 'postgres');
  let primary: EmbeddedDatabase | undefined;
  let standby: Standby | undefined;
  const stop = async () => {
    try {
      await standby?.remove();
    } finally {
      await primary?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  };
  try {
    primary = await startEmbeddedPostgres(join(dir, 'primary'), logger);
    standby = await startStandby({ primaryUrl: primary.url, primaryDir, databaseDir: join(dir, 'standby'), logger });
  } catch (error) {
    await stop();
    throw error;
  }
  const theStandby = standby;
  return {
    primaryUrl: primary.url,
    primaryDir,
    standby: theStandby,
    onStandby(databaseUrl) {
      const url = new URL(databaseUrl);
      url.port = new URL(theStandby.url).port;
      return url.toString();
    },
    stop,
  };
}

/**
 * A StandbyPair for the enclosing `describe`, or the file: started in `beforeAll`, removed in
 * `afterAll` (slot dropped, both servers stopped, their directory deleted). The handle reads the
 * running pair on each access: use it inside tests and hooks.
 */
export function useStandbyPair(): StandbyPair {
  let pair: (StandbyPair & { stop(): Promise<void> }) | undefined;
  beforeAll(async () => {
    pair = await startStandbyPair();
  });
  afterAll(() => pair?.stop());
  const running = () => {
    if (!pair) throw new Error('The standby pair is not running: use it inside a test or a hook, after its beforeAll.');
    return pair;
  };
  return {
    get primaryUrl() {
      return running().primaryUrl;
    },
    get primaryDir() {
      return running().primaryDir;
    },
    get standby() {
      return running().standby;
    },
    onStandby: (databaseUrl) => running().onStandby(databaseUrl),
  };
}
