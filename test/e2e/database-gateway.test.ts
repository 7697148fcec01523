import { connect, createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GraphQLError } from 'graphql';
import { Database, type SentStatement } from '../../src/database/database.js';
import { safeError } from '../../src/errors/safe-errors.js';
import { positional } from '../../src/database/sql.js';
import { createTestDatabase } from '../support/test-service.js';

/**
 * The contract of `src/database/database.ts`, the one gateway for SQL: named prepared statements
 * (or none), one transaction on one connection (committed, or rolled back when the work throws),
 * the statement event the tests and the debug log listen to, errors as PostgreSQL gives them, the
 * connection settings, and the column types the reads rely on. On a database of its own, with no
 * service beside it: every statement the listeners see is the test's.
 */
describe('the SQL gateway', () => {
  let url: string;
  let database: Database;
  beforeAll(async () => {
    url = await createTestDatabase();
    database = new Database({ url });
  });
  afterAll(() => database?.close());
  const watch = (database: Database) => {
    const seen: SentStatement[] = [];
    return { seen, stop: database.onStatement((statement) => seen.push(statement)) };
  };

  it('runs a statement as a named prepared statement, `?` placeholders as `$n`, told to statement listeners', async () => {
    const { seen, stop } = watch(database);
    try {
      const sql = 'select name, statement from pg_prepared_statements where statement = ?';
      const text = positional(sql);
      const rows = await database.query<{ name: string; statement: string }>(sql, [text]);
      // The statement running is itself prepared on its connection, under its q_ name.
      expect(rows).toEqual([{ name: expect.stringMatching(/^q_[0-9a-f]{16}$/), statement: text }]);
      expect(seen).toEqual([expect.objectContaining({ text, values: [text], error: undefined })]);
    } finally {
      stop();
    }
  });

  it('sends statements unnamed when prepared statements are off (a pooler in transaction mode)', async () => {
    const unnamed = new Database({ url, preparedStatements: false });
    try {
      const sql = 'select count(*)::int as prepared from pg_prepared_statements where statement = ?';
      expect(await unnamed.query<{ prepared: number }>(sql, [positional(sql)])).toEqual([{ prepared: 0 }]);
      // A library's named statement travels unnamed too.
      const named = await unnamed.executeSql('select count(*)::int as prepared from pg_prepared_statements', [], 'a-library-statement');
      expect(named.rows).toEqual([{ prepared: 0 }]);
    } finally {
      await unnamed.close();
    }
  });

  it('runs a transaction on one connection (a create reads its own writes), rolled back when the work throws', async () => {
    await database.query('create table gateway_probe (id int)');
    try {
      const inside = await database.transaction(async (tx) => {
        expect(tx.inTransaction).toBe(true);
        await tx.query('insert into gateway_probe (id) values (?)', [7]);
        const [{ backend }] = await tx.query<{ backend: number }>('select pg_backend_pid() as backend');
        const [{ again }] = await tx.query<{ again: number }>('select pg_backend_pid() as again');
        expect(again).toBe(backend);
        return tx.query<{ id: number }>('select id from gateway_probe');
      });
      expect(inside).toEqual([{ id: 7 }]);
      await expect(
        database.transaction(async (tx) => {
          await tx.query('insert into gateway_probe (id) values (?)', [8]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await database.query('select id from gateway_probe order by id')).toEqual([{ id: 7 }]);
    } finally {
      await database.query('drop table gateway_probe');
    }
  });

  it('sends BEGIN, the work and COMMIT (or ROLLBACK) as statements, and refuses a transaction used after it ended', async () => {
    const { seen, stop } = watch(database);
    let kept: { query(sql: string): Promise<unknown> } | undefined;
    try {
      await database.transaction(async (tx) => {
        kept = tx;
        await tx.query('select 1');
      });
      await database.transaction(async () => Promise.reject(new Error('no'))).catch(() => undefined);
    } finally {
      stop();
    }
    expect(seen.map((statement) => statement.text)).toEqual(['begin', 'select 1', 'commit', 'begin', 'rollback']);
    await expect(kept!.query('select 1')).rejects.toThrow(/transaction has ended/);
  });

  it('gives PostgreSQL errors as they are (code, constraint), and the pool is whole afterwards', async () => {
    const { seen, stop } = watch(database);
    try {
      const failed = await database.query('select 1/0').catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: '22012' });
      await database.transaction((tx) => tx.query('select * from no_such_table')).catch(() => undefined);
      expect(seen.find((statement) => statement.text === 'select 1/0')?.error).toBe(failed);
    } finally {
      stop();
    }
    expect(await database.query('select 1 as one')).toEqual([{ one: 1 }]);
    expect(database.poolState()).toMatchObject({ inUse: 0, waiting: 0 });
  });

  it('closes only once every connection has ended (a PostgreSQL stopped next would cut none)', async () => {
    // What the client sends reaches PostgreSQL 300 ms late: its goodbye (Terminate) too.
    const proxy = await slowProxy(new URL(url), 300);
    const closing = new Database({ url: proxy.url });
    try {
      await Promise.all(Array.from({ length: 3 }, () => closing.query('select pg_sleep(0.05)')));
      const started = Date.now();
      await closing.close();
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      proxy.close();
    }
  });

  it('connects with the settings it is given (statement timeout, startup options)', async () => {
    const configured = new Database({ url, statementTimeoutMs: 1234, options: '-c org_policy.probe=42' });
    try {
      expect(
        await configured.query<{ timeout: string; idle: string; probe: string }>(
          `select current_setting('statement_timeout') as timeout, current_setting('idle_in_transaction_session_timeout') as idle,
             current_setting('org_policy.probe') as probe`,
        ),
      ).toEqual([{ timeout: '1234ms', idle: '1234ms', probe: '42' }]);
      await expect(configured.query('select pg_sleep(2)')).rejects.toMatchObject({ code: '57014' });
    } finally {
      await configured.close();
    }
  });

  it('reads dates, timestamps and intervals as PostgreSQL writes them, and bigint and numeric as text', async () => {
    const [row] = await database.query(
      `select date '2026-01-31' as day, timestamptz '2026-01-31 10:00:00+00' as at, interval '1 day' as span,
         array[date '2026-01-31', null] as days, 9007199254740993::bigint as big, 0.125::numeric as rate, 7 as small`,
    );
    expect(row).toEqual({
      day: '2026-01-31',
      at: expect.stringMatching(/^2026-01-31 \d\d:00:00[+-]\d\d/),
      span: '1 day',
      days: ['2026-01-31', null],
      big: '9007199254740993',
      rate: '0.125',
      small: 7,
    });
  });
});

describe('the SQL gateway without a database', () => {
  // What the error becomes for a caller (errors/safe-errors.ts): UNAVAILABLE is the 503.
  const answered = (error: unknown) => ({
    message: (error as Error).message,
    code: safeError(new GraphQLError('from a resolver', { originalError: error as Error })).safe.extensions.code,
  });

  let away: Database | undefined;
  afterAll(() => away?.close());

  it('fails within seconds when PostgreSQL is not there', async () => {
    const url = new URL(inject('databaseAdminUrl'));
    url.port = '1';
    away = new Database({ url: url.toString() });
    const started = Date.now();
    const refused = await away.query('select 1').catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'ECONNREFUSED' });
    expect(answered(refused).code).toBe('UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('gives up connecting after 2 s to a server that does not answer', async () => {
    // Accepts the TCP connection and never says a word: PostgreSQL hung, or a black hole.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const mute = new Database({ url: `postgres://nobody@127.0.0.1:${(silent.address() as AddressInfo).port}/none` });
    try {
      const started = Date.now();
      expect(answered(await mute.query('select 1').catch((error: unknown) => error))).toEqual({
        message: 'timeout expired',
        code: 'UNAVAILABLE',
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(Date.now() - started).toBeLessThan(2_900);
    } finally {
      await mute.close();
      silent.close();
    }
  });

  it('waits at most 3 s for a connection of a full pool', async () => {
    const full = new Database({ url: await createTestDatabase(), max: 1 });
    try {
      let release: () => void = () => undefined;
      const held = full.transaction(() => new Promise<void>((resolve) => (release = resolve)));
      const started = Date.now();
      expect(answered(await full.query('select 1').catch((error: unknown) => error))).toEqual({
        message: 'timeout exceeded when trying to connect',
        code: 'UNAVAILABLE',
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_900);
      release();
      await held;
    } finally {
      await full.close();
    }
  });
});

/** A TCP proxy to `target` that passes on what the client sends `ms` late (a slow network), its end too. */
async function slowProxy(target: URL, ms: number): Promise<{ url: string; close(): void }> {
  // Half-open: the client's end does not end the way back, which PostgreSQL ends when it has read it.
  const server = createServer({ allowHalfOpen: true }, (inbound) => {
    const outbound = connect(Number(target.port), target.hostname);
    inbound.on('data', (chunk) => setTimeout(() => outbound.write(chunk), ms));
    inbound.on('end', () => setTimeout(() => outbound.end(), ms));
    outbound.pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return { url: url.toString(), close: () => server.close() };
}
