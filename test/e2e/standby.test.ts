import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryOnce, startStandby } from '../../src/database/embedded-standby.js';
import { createLogger } from '../../src/logger.js';
import { useStandbyPair } from '../support/standby.js';
import { createTestDatabase } from '../support/test-service.js';

/**
 * The real standby the read-replica tests run on (contract section 17): a copy of a running
 * embedded primary that streams from it, with replay paused on purpose to make lag.
 */
describe('a streaming standby of an embedded primary', () => {
  const pair = useStandbyPair();
  let primaryDatabase: string;
  let standbyDatabase: string;

  const sql = queryOnce;
  const notes = async (url: string) => (await sql<{ note: string }>(url, 'SELECT note FROM notes ORDER BY id')).map((row) => row.note);

  beforeAll(async () => {
    // A database made after the copy: it reaches the standby through the WAL like any write.
    primaryDatabase = await createTestDatabase(pair.primaryUrl);
    standbyDatabase = pair.onStandby(primaryDatabase);
    await sql(primaryDatabase, 'CREATE TABLE notes (id serial PRIMARY KEY, note text NOT NULL)');
  });

  it('streams from its slot on the primary', async () => {
    // Its WAL sender says `catchup` until the standby has caught up.
    await expect
      .poll(() =>
        sql(
          pair.primaryUrl,
          'SELECT r.state, s.slot_name AS slot FROM pg_stat_replication r JOIN pg_replication_slots s ON s.active_pid = r.pid',
        ),
      )
      .toEqual([{ state: 'streaming', slot: pair.standby.slot }]);
    expect(await sql(pair.standby.url, 'SELECT pg_is_in_recovery() AS recovery')).toEqual([{ recovery: true }]);
  });

  it('serves a write made on the primary once it has replayed it', async () => {
    await sql(primaryDatabase, "INSERT INTO notes (note) VALUES ('first')");
    await pair.standby.waitForReplay();
    expect(await notes(standbyDatabase)).toEqual(['first']);
  });

  it('stays stale while its replay is paused, and catches up when resumed', async () => {
    await pair.standby.pauseReplay();
    try {
      const before = await pair.standby.replayLsn();
      await sql(primaryDatabase, "INSERT INTO notes (note) VALUES ('while paused')");
      const written = await pair.standby.primaryLsn();
      expect(await notes(primaryDatabase)).toEqual(['first', 'while paused']);
      // Streaming goes on (the WAL is received), replay does not: a second later it is still behind.
      await expect(pair.standby.waitForReplay(written, 1000)).rejects.toThrow(/replayed up to .* \(replay: paused\)/);
      expect(await pair.standby.replayLsn()).toBe(before);
      expect(await notes(standbyDatabase)).toEqual(['first']);
    } finally {
      await pair.standby.resumeReplay();
    }
    await pair.standby.waitForReplay();
    expect(await notes(standbyDatabase)).toEqual(['first', 'while paused']);
  });

  it('comes back after a stop with its data, and catches up on what it missed', async () => {
    await pair.standby.stop();
    expect(pair.standby.running).toBe(false);
    await expect(sql(standbyDatabase, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    await sql(primaryDatabase, "INSERT INTO notes (note) VALUES ('while stopped')");
    await pair.standby.start();
    await pair.standby.waitForReplay();
    expect(await notes(standbyDatabase)).toEqual(['first', 'while paused', 'while stopped']);
  });

  it('refuses writes', async () => {
    const write = sql(standbyDatabase, "INSERT INTO notes (note) VALUES ('on the standby')");
    await expect(write).rejects.toMatchObject({ code: '25006', message: 'cannot execute INSERT in a read-only transaction' });
    await expect(sql(standbyDatabase, 'CREATE TABLE other (id int)')).rejects.toMatchObject({ code: '25006' });
  });

  it('is reused by a later start on the same directory and slot, and removed with its slot', async () => {
    const logger = createLogger('silent');
    const options = {
      primaryUrl: pair.primaryUrl,
      primaryDir: pair.primaryDir,
      databaseDir: `${pair.standby.databaseDir}-second`,
      slot: 'second',
      logger,
    };
    const second = await startStandby(options);
    // A copy would replace the directory, and this file with it.
    await writeFile(join(options.databaseDir, 'kept'), '');
    await second.stop();
    await sql(primaryDatabase, "INSERT INTO notes (note) VALUES ('for the second')");
    const again = await startStandby(options);
    try {
      expect(existsSync(join(options.databaseDir, 'kept'))).toBe(true);
      await again.waitForReplay();
      const database = new URL(primaryDatabase);
      database.port = new URL(again.url).port;
      expect(await notes(database.toString())).toContain('for the second');
    } finally {
      await again.remove();
    }
    expect(existsSync(options.databaseDir)).toBe(false);
    expect(await sql(pair.primaryUrl, "SELECT slot_name FROM pg_replication_slots WHERE slot_name = 'second'")).toEqual([]);
  });
});
