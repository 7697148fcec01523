import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { usePgBouncer } from '../support/pgbouncer.js';
import { describeUnless, missing } from '../support/programs.js';
import { createTestDatabase } from '../support/test-service.js';

/**
 * Debian bookworm's PgBouncer 1.18 in transaction pool mode (contract section 17,
 * DATABASE_PREPARED_STATEMENTS): what works through it, and what a named prepared statement,
 * which lives in one server session, does when the next transaction runs on another.
 */
describeUnless(missing('pgbouncer'), 'PgBouncer in transaction pool mode', () => {
  const bouncer = usePgBouncer(() => inject('databaseAdminUrl'));
  const clients: pg.Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.end().catch(() => undefined);
  });

  /** A client of a new database through PgBouncer: its own pool there, with no server connection yet. */
  const connect = async (databaseUrl: string, config: Partial<pg.ClientConfig> = {}, url = bouncer.url) => {
    const through = new URL(url);
    through.pathname = new URL(databaseUrl).pathname;
    const client = new pg.Client({ connectionString: through.toString(), ...config });
    clients.push(client);
    await client.connect();
    return client;
  };
  const statement = { name: 'q_prepared', text: 'SELECT $1::int AS value', values: [1] };

  it('runs plain statements, unnamed parameterized ones and transactions', async () => {
    const database = await createTestDatabase();
    const client = await connect(database);
    await client.query('CREATE TABLE notes (id serial PRIMARY KEY, note text NOT NULL)');
    expect((await client.query('SELECT $1::text AS echoed', ['through'])).rows).toEqual([{ echoed: 'through' }]);
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (note) VALUES ($1)', ['kept']);
    await client.query('COMMIT');
    await client.query('BEGIN');
    await client.query('INSERT INTO notes (note) VALUES ($1)', ['rolled back']);
    await client.query('ROLLBACK');
    const direct = new pg.Client(database);
    await direct.connect();
    try {
      expect((await direct.query('SELECT note FROM notes')).rows).toEqual([{ note: 'kept' }]);
    } finally {
      await direct.end();
    }
  });

  it('runs two clients on one server connection, one transaction after the other', async () => {
    const database = await createTestDatabase();
    const first = await connect(database);
    const second = await connect(database);
    const pid = async (client: pg.Client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    // Idle between transactions, the one server connection of this new pool serves whoever asks.
    expect(await pid(second)).toBe(await pid(first));
  });

  it('refuses a named statement another client prepared on the same server connection: "already exists"', async () => {
    const database = await createTestDatabase();
    const first = await connect(database);
    const second = await connect(database);
    expect((await first.query(statement)).rows).toEqual([{ value: 1 }]);
    // node-postgres prepares per client: the second sends Parse again, on the server connection that has it.
    await expect(second.query(statement)).rejects.toMatchObject({
      code: '42P05',
      message: 'prepared statement "q_prepared" already exists',
    });
  });

  it('fails a named statement whose next transaction runs on another server connection: "does not exist"', async () => {
    const database = await createTestDatabase();
    const first = await connect(database);
    const second = await connect(database);
    expect((await first.query(statement)).rows).toEqual([{ value: 1 }]);
    // The second client's open transaction holds the server connection that has the statement,
    // so PgBouncer gives the first's next statement a new one; node-postgres, which prepared it
    // already, sends only Bind and Execute.
    await second.query('BEGIN');
    await expect(first.query(statement)).rejects.toMatchObject({
      code: '26000',
      message: 'prepared statement "q_prepared" does not exist',
    });
    await second.query('ROLLBACK');
    // The same statement unnamed (DATABASE_PREPARED_STATEMENTS=false) runs wherever it lands.
    await second.query('BEGIN');
    expect((await first.query({ text: statement.text, values: statement.values })).rows).toEqual([{ value: 1 }]);
    await second.query('ROLLBACK');
  });

  it('refuses startup parameters other than its few; ignored, they are lost', async () => {
    const database = await createTestDatabase();
    await expect(connect(database, { statement_timeout: 1000 })).rejects.toMatchObject({
      code: '08P01',
      message: 'unsupported startup parameter: statement_timeout',
    });
    await expect(connect(database, { options: '-c statement_timeout=1000' })).rejects.toMatchObject({
      code: '08P01',
      message: 'unsupported startup parameter: options',
    });
  });

  describe('with ignore_startup_parameters', () => {
    const ignoring = usePgBouncer(() => inject('databaseAdminUrl'), { ignoreStartupParameters: ['statement_timeout'] });

    it('connects, but the server never gets the setting', async () => {
      const client = await connect(await createTestDatabase(), { statement_timeout: 1000 }, ignoring.url);
      expect((await client.query('SHOW statement_timeout')).rows).toEqual([{ statement_timeout: '0' }]);
    });
  });
});
