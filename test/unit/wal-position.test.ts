import { describe, expect, it } from 'vitest';
import type { SqlClient } from '../../src/database/database.js';
import { WalPosition } from '../../src/database/wal-position.js';

/** A primary whose position moves on with every read of it; `fail` makes the next read fail. */
function primary() {
  const state = { reads: 0, fail: false };
  const database = {
    inTransaction: false,
    query: async () => {
      state.reads++;
      if (state.fail) throw Object.assign(new Error('terminating connection'), { code: '57P01' });
      return [{ lsn: `0/${(0x1000 + state.reads).toString(16).toUpperCase()}` }];
    },
  } as unknown as SqlClient;
  return { state, database };
}

describe('WalPosition (the Consistency-Token of a write, contract section 17)', () => {
  it('writes that finish together share one read of the position', async () => {
    const { state, database } = primary();
    const positions = new WalPosition(database);
    const tokens = await Promise.all([positions.afterCommit(), positions.afterCommit(), positions.afterCommit()]);
    expect(state.reads).toBe(1);
    expect(new Set(tokens)).toEqual(new Set(['0/1001']));
  });

  it('a write that finishes once the read is sent waits for a read of its own, sent after its commit', async () => {
    const { state, database } = primary();
    const positions = new WalPosition(database);
    const first = positions.afterCommit();
    // The shared read goes out at the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    const second = positions.afterCommit();
    expect(await first).toBe('0/1001');
    expect(await second).toBe('0/1002');
    expect(state.reads).toBe(2);
  });

  it('a database that cannot say gives no token, and the next write asks again', async () => {
    const { state, database } = primary();
    const positions = new WalPosition(database);
    state.fail = true;
    expect(await positions.afterCommit()).toBeNull();
    state.fail = false;
    expect(await positions.afterCommit()).toBe('0/1002');
  });

  it("judges a token by the furthest position read here, and reads the primary's only for a token ahead of it (contract section 17)", async () => {
    const { state, database } = primary();
    const positions = new WalPosition(database);
    // A write here: its token, and any before it, are known to be behind the primary.
    expect(await positions.afterCommit()).toBe('0/1001');
    expect(await positions.reached(0x1001n)).toBe(true);
    expect(await positions.reached(0x10n)).toBe(true);
    expect(state.reads).toBe(1);
    // Ahead of what was read (another instance's later write): one read, after the call, decides.
    expect(await positions.reached(0x1002n)).toBe(true);
    expect(state.reads).toBe(2);
    // Ahead of the primary itself: no write gave it.
    expect(await positions.reached(0xffffffffffffffffn)).toBe(false);
    expect(state.reads).toBe(3);
    // Tokens arriving together share one read.
    const judged = await Promise.all([positions.reached(0x2000n), positions.reached(0x2001n), positions.reached(0x1003n)]);
    expect(judged).toEqual([false, false, true]);
    expect(state.reads).toBe(4);
  });

  it('a database that cannot say leaves the token unjudged (null): the request meets the database itself', async () => {
    const { state, database } = primary();
    const positions = new WalPosition(database);
    state.fail = true;
    expect(await positions.reached(0x1000n)).toBeNull();
  });
});
