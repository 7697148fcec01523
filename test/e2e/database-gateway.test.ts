import { describe, expect, it } from 'vitest';
import { positional, querySql } from '../../src/database/sql.js';
import { useTestService } from '../support/test-service.js';
import { inTransaction } from '../../src/database/transaction.js';

/**
 * What `src/database/sql.ts`, the one gateway for hand-written SQL, needs from MikroORM 6's
 * knex: its client's connection pool (acquire, release), its 'query' event, and raw statements
 * bound to a transaction. MikroORM 7 replaces knex with Kysely: this file says what to port.
 */
describe('the SQL gateway', () => {
  const service = useTestService();

  it('finds what it uses on the knex client', () => {
    const client = service.orm.em.getConnection().getKnex().client as Record<string, unknown>;
    expect(typeof client.acquireConnection).toBe('function');
    expect(typeof client.releaseConnection).toBe('function');
    expect(typeof client.emit).toBe('function');
  });

  it('runs a statement outside a transaction as a named prepared statement, seen by query listeners', async () => {
    const em = service.orm.em.fork();
    const seen: string[] = [];
    const listener = (query: { sql: string }) => seen.push(query.sql);
    const knex = em.getConnection().getKnex();
    knex.on('query', listener);
    try {
      const sql = 'select name, statement from pg_prepared_statements where statement = ?';
      const text = positional(sql);
      const rows = await querySql<{ name: string; statement: string }>(em, sql, [text]);
      // The statement running is itself prepared on its connection, under its q_ name.
      expect(rows).toEqual([{ name: expect.stringMatching(/^q_[0-9a-f]{16}$/), statement: text }]);
      expect(seen).toContain(text);
    } finally {
      knex.off('query', listener);
    }
  });

  it('runs a statement inside a transaction on that transaction (a create reads its own writes), rolled back when the work throws', async () => {
    const em = service.orm.em.fork();
    await service.sql('create table gateway_probe (id int)');
    try {
      const inside = await inTransaction(em, async (tx) => {
        await querySql(tx, 'insert into gateway_probe (id) values (?)', [7]);
        return querySql<{ id: number }>(tx, 'select id from gateway_probe');
      });
      expect(inside).toEqual([{ id: 7 }]);
      await expect(
        inTransaction(em, async (tx) => {
          await querySql(tx, 'insert into gateway_probe (id) values (?)', [8]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await service.sql('select id from gateway_probe order by id')).toEqual([{ id: 7 }]);
    } finally {
      await service.sql('drop table gateway_probe');
    }
  });
});
