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
});
