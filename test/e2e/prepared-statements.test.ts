import pg from 'pg';
import { expect, inject, it } from 'vitest';
import { Database } from '../../src/database/database.js';
import { migrateDatabase } from '../../src/database/migrate.js';
import { createLogger } from '../../src/logger.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { startPgBouncer, usePgBouncer } from '../support/pgbouncer.js';
import { describeUnless, missing } from '../support/programs.js';
import { createTestDatabase, startTestService } from '../support/test-service.js';

/**
 * DATABASE_PREPARED_STATEMENTS (contract section 17) with Debian's PgBouncer 1.18 in transaction
 * pool mode in front of the run's PostgreSQL: the default (named statements, and the statement
 * timeouts and the trees' limits as startup parameters) stops the start with an error that says
 * what to do; `false` runs the service through it once the role carries those settings, which the
 * start checks. Where PgBouncer drops the startup parameters instead, a lost named statement is
 * said plainly in the log.
 */
describeUnless(missing('pgbouncer'), 'the service through PgBouncer in transaction mode', () => {
  const bouncer = usePgBouncer(() => inject('databaseAdminUrl'));
  const lenient = usePgBouncer(() => inject('databaseAdminUrl'), {
    ignoreStartupParameters: ['statement_timeout', 'idle_in_transaction_session_timeout', 'options'],
    poolSize: 1,
  });
  const through = (databaseUrl: string, pooler = bouncer.url) => {
    const url = new URL(pooler);
    url.pathname = new URL(databaseUrl).pathname;
    return url.toString();
  };
  /** A new database, migrated directly (as a deployment migrates before it starts its instances). */
  const migrated = async () => {
    const database = await createTestDatabase();
    await migrateDatabase(database, createLogger('silent'));
    return database;
  };
  const env = { MIGRATE_ON_START: 'false' };

  it('refuses to start with named prepared statements, naming DATABASE_PREPARED_STATEMENTS=false', async () => {
    const database = await migrated();
    await expect(startTestService(env, { databaseUrl: through(database) })).rejects.toThrow(
      /refused the connection's startup parameters \(unsupported startup parameter: .*\): a pooler in transaction mode .* Set DATABASE_PREPARED_STATEMENTS=false/,
    );
  });

  it('with DATABASE_PREPARED_STATEMENTS=false, starts once the role has the settings the error names, and serves', async () => {
    const database = await migrated();
    const off = { ...env, DATABASE_PREPARED_STATEMENTS: 'false', ORGANIZATION_MAX_DEPTH: '7' };
    const refused = await startTestService(off, { databaseUrl: through(database) }).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/the role's own settings .* differ from the service's .*statement_timeout is 0/);
    // What the error says to run, run as it says (on the primary itself).
    const statements = refused?.match(/ALTER ROLE [^;]+;/g) ?? [];
    // The timeouts and the trees' limits (the depth, and the quotas that are on: webhook endpoints
    // and roots per sub by default).
    expect(statements.map((statement) => statement.replace(/^.* SET (\S+) = .*$/, '$1'))).toEqual([
      'statement_timeout',
      'idle_in_transaction_session_timeout',
      'org_policy.quota_webhook_endpoints_per_tree',
      'org_policy.quota_roots_per_sub',
      'org_policy.organization_max_depth',
    ]);
    expect(statements[0]).toMatch(/^ALTER ROLE "postgres" IN DATABASE "[^"]+" SET statement_timeout = '10000ms';$/);
    const admin = new pg.Client(database);
    await admin.connect();
    try {
      for (const statement of statements) await admin.query(statement);
    } finally {
      await admin.end();
    }

    // A PgBouncer's server connections keep the settings they logged in with: a fresh one (or its RECONNECT) takes the new ones.
    const fresh = await startPgBouncer(inject('databaseAdminUrl'));
    const service = await startTestService(off, { databaseUrl: through(database, fresh.url) }).catch(async (error: unknown) => {
      await fresh.stop();
      throw error;
    });
    try {
      const token = await service.token({ sub: 'through-pgbouncer' });
      const organization = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
      expect(organization.status).toBe(200);
      for (let round = 0; round < 5; round++) {
        const [policy, read] = await Promise.all([
          request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: organization.body.id }) }),
          request(service.url, 'GET', `/api/v1/organization/${organization.body.id}`, { token }),
        ]);
        expect([policy.status, read.status]).toEqual([200, 200]);
        const graphql = await request(service.url, 'POST', '/graphql', {
          token,
          body: {
            query: 'query ($n: SafeInt!) { policy(number: $n) { number organization { id } } }',
            variables: { n: policy.body.number },
          },
        });
        expect(graphql.body).toEqual({ data: { policy: { number: policy.body.number, organization: { id: organization.body.id } } } });
      }
      // The role's settings are in force through PgBouncer: the service's statement timeout and the depth limit the triggers read.
      const settings = await service.database.query<{ timeout: string; depth: string }>(
        "select current_setting('statement_timeout') as timeout, current_setting('org_policy.organization_max_depth') as depth",
      );
      expect(settings).toEqual([{ timeout: '10s', depth: '7' }]);
    } finally {
      await service.stop();
      await fresh.stop();
    }
  });

  it('says plainly in the log when a pooler lost a named statement (startup parameters dropped instead of refused)', async () => {
    const database = await createTestDatabase();
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger('error', { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    const gateway = new Database({ url: through(database, lenient.url), max: 2, logger });
    try {
      // Two connections of the pool, one server connection behind PgBouncer: the second prepares a name the first left there.
      const outcomes = await Promise.allSettled([gateway.query('select ?::int as one', [1]), gateway.query('select ?::int as one', [1])]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(lines).toEqual([
        expect.objectContaining({
          code: '42P05',
          msg: expect.stringMatching(/named prepared statement was lost .* Set DATABASE_PREPARED_STATEMENTS=false/),
        }),
      ]);
    } finally {
      await gateway.close();
    }
  });
});
