import { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import PgBoss10 from 'pg-boss-10';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { ormSettings } from '../../src/database/orm-settings.js';
import { createLogger } from '../../src/logger.js';
import { insertOrganizations } from '../support/rows.js';
import { createTestDatabase, startTestService, type TestService } from '../support/test-service.js';

/**
 * The upgrade of the job queue from pg-boss 10 to pg-boss 12 (docs/decisions.md, webhooks):
 * pg-boss 12 cannot migrate pg-boss 10's schema, so the service's migration drops it and the
 * relay enqueues every pending delivery again from `webhook_delivery`. The database before the
 * upgrade is made as the previous release left it: its migrations (all but the upgrade's), its
 * rows, and its queue written by the real pg-boss 10 (the `pg-boss-10` alias of pg-boss@10.4.2),
 * with the job of each pending delivery queued there.
 */
const QUEUE = 'webhook-delivery';
/** The last migration of the release that ran pg-boss 10. */
const PREVIOUS_RELEASE_MIGRATION = 'Migration20261124000000_observability';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

async function receiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body, at: Date.now() });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server };
}

async function until(check: () => boolean, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The previous release's migrations, as its start-up applied them. */
async function migrateAsPreviousRelease(databaseUrl: string): Promise<void> {
  const orm = await MikroORM.init({
    ...ormSettings(databaseUrl, createLogger('silent')),
    entities: [],
    discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
  });
  try {
    await orm.getMigrator().up({ to: PREVIOUS_RELEASE_MIGRATION });
  } finally {
    await orm.close();
  }
}

describe('upgrading the queue from pg-boss 10', () => {
  let service: TestService | undefined;
  let pool: pg.Pool | undefined;
  const servers: Server[] = [];
  afterAll(async () => {
    await service?.stop();
    await pool?.end();
    servers.forEach((server) => server.close());
  });

  it('delivers every delivery queued in pg-boss 10’s schema, signed, each as its next attempt, on pg-boss 12’s schema', async () => {
    const databaseUrl = await createTestDatabase();
    await migrateAsPreviousRelease(databaseUrl);
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const sql = async <T extends pg.QueryResultRow>(text: string, values?: unknown[]) => (await pool!.query<T>(text, values)).rows;
    expect((await sql<{ name: string }>('select name from mikro_orm_migrations order by id desc limit 1'))[0].name).toBe(
      PREVIOUS_RELEASE_MIGRATION,
    );

    // An organization, an endpoint (its secret sealed as the service seals it) and two events:
    // the event's trigger makes a pending delivery of each.
    const dataKey = randomBytes(32);
    const hooks = await receiver();
    servers.push(hooks.server);
    const [organizationId] = await insertOrganizations({ sql }, [{ ownerSub: 'upgrade' }]);
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const sealed = new FieldCipher(dataKey).seal(secret, 'webhook_endpoint.secret');
    await sql(
      `insert into webhook_endpoint (id, organization_id, url, events, secret_ciphertext, secret_key_id, created_by_sub)
       values ($1, $2, $3, '{policy.created}', $4, $5, 'upgrade')`,
      [randomUUID(), organizationId, hooks.url, sealed.ciphertext, sealed.keyId],
    );
    const [fresh, retrying] = [randomUUID(), randomUUID()];
    for (const [number, eventId] of [fresh, retrying].entries()) {
      await sql(`insert into event (id, type, organization_id, data) values ($1, 'policy.created', $2, $3)`, [
        eventId,
        organizationId,
        { object: { number: number + 1 } },
      ]);
    }
    const deliveries = await sql<{ id: string; event_id: string }>('select id, event_id from webhook_delivery');
    const deliveryOf = (eventId: string) => deliveries.find((delivery) => delivery.event_id === eventId)!.id;
    expect(deliveries).toHaveLength(2);

    // The previous release's queue, by pg-boss 10 itself: its relay enqueued the new delivery's
    // first attempt; the other had made two attempts (500 both times) and its third was queued
    // for later, written with the outcome in one transaction as record() did.
    const old = new PgBoss10({ connectionString: databaseUrl, max: 2 });
    old.on('error', () => undefined);
    await old.start();
    await old.createQueue(QUEUE, { name: QUEUE, retryLimit: 5, retryDelay: 5, expireInSeconds: 30, retentionDays: 1 });
    const client = await pool.connect();
    try {
      const db = { executeSql: (text: string, values: unknown[]) => client.query(text, values) };
      await client.query('begin');
      await old.insert([{ name: QUEUE, data: { deliveryId: deliveryOf(fresh), attempt: 1 } }], { db });
      await client.query(
        `update webhook_delivery set attempts = 2, last_status = 500, last_attempt_at = now(), next_attempt_at = now() + interval '4 seconds' where id = $1`,
        [deliveryOf(retrying)],
      );
      await old.send(QUEUE, { deliveryId: deliveryOf(retrying), attempt: 3 }, { startAfter: 4, db });
      await client.query('update webhook_delivery set enqueued = true');
      await client.query('commit');
    } finally {
      client.release();
    }
    await old.stop({ graceful: false, wait: true });
    expect(await sql(`select version from pgboss.version`)).toEqual([{ version: 24 }]);
    expect(await sql(`select data from pgboss.job where name = $1 and state = 'created' order by data->>'attempt'`, [QUEUE])).toEqual([
      { data: { deliveryId: deliveryOf(fresh), attempt: 1 } },
      { data: { deliveryId: deliveryOf(retrying), attempt: 3 } },
    ]);
    const [{ due }] = await sql<{ due: Date }>('select next_attempt_at as due from webhook_delivery where id = $1', [deliveryOf(retrying)]);

    // The upgraded service on that database: its migrations, then pg-boss 12, the relay, the workers.
    service = await startTestService({ DATA_ENCRYPTION_KEY: dataKey.toString('base64') }, { databaseUrl });
    await until(() => hooks.received.length >= 2, 'both deliveries', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // nothing more may come
    expect(hooks.received).toHaveLength(2);

    // Each arrived once, signed with the endpoint's secret (verified by `standardwebhooks`).
    const verifier = new Webhook(secret);
    const byEvent = new Map(hooks.received.map((request) => [String(request.headers['webhook-id']), request]));
    expect([...byEvent.keys()].sort()).toEqual([fresh, retrying].sort());
    for (const { headers, body } of hooks.received) {
      const event = verifier.verify(body, headers as Record<string, string>) as { id: string; type: string; organizationId: string };
      expect(event).toMatchObject({ id: headers['webhook-id'], type: 'policy.created', organizationId });
    }
    // The retried delivery kept its schedule: not before its next attempt's time.
    expect(byEvent.get(retrying)!.at).toBeGreaterThanOrEqual(due.getTime());

    // Recorded as the attempts they were: the first, and the third (not the first again).
    const states = await sql<{ event_id: string; status: string; attempts: number; last_status: number; enqueued: boolean }>(
      'select event_id, status, attempts, last_status, enqueued from webhook_delivery order by attempts',
    );
    expect(states).toEqual([
      { event_id: fresh, status: 'delivered', attempts: 1, last_status: 200, enqueued: true },
      { event_id: retrying, status: 'delivered', attempts: 3, last_status: 200, enqueued: true },
    ]);

    // The queue is pg-boss 12's now, and the jobs in it were the relay's.
    const pgboss12 = JSON.parse(await readFile(new URL('../../node_modules/pg-boss/package.json', import.meta.url), 'utf8')) as {
      version: string;
      pgboss: { schema: number };
    };
    expect(pgboss12.version).toMatch(/^12\./);
    expect(await sql(`select version from pgboss.version`)).toEqual([{ version: pgboss12.pgboss.schema }]);
    expect(await sql(`select data from pgboss.job where name = $1 order by data->>'attempt'`, [QUEUE])).toEqual([
      { data: { deliveryId: deliveryOf(fresh), attempt: 1 } },
      { data: { deliveryId: deliveryOf(retrying), attempt: 3 } },
    ]);
  }, 90_000);
});
