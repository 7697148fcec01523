/**
 * A few seconds of measurement behind the database access decision (docs/decisions.md, "One pool,
 * one gateway"): CPU per statement through knex's pool (MikroORM 6, as database/sql.ts borrowed
 * it before issue 26) and through the gateway (database/database.ts, a pg.Pool); the start-up
 * time and memory of loading MikroORM and `MikroORM.init` with the entities against opening the
 * gateway; and a whole service started as a cluster worker is (not migrating), with whether it
 * loaded knex. On an embedded PostgreSQL of its own, in a temporary directory; the start-up
 * figures come from fresh child processes.
 *
 *   npx tsx scripts/measure-database.ts [--seconds 2] [--rounds 3] [--only cpu,open,service]
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    /** Some of: cpu, open, service (all by default). */
    only: { type: 'string', default: 'cpu,open,service' },
    child: { type: 'string' },
    url: { type: 'string' },
  },
});

interface Sender {
  send(i: number): Promise<unknown>;
  close(): Promise<void>;
}

/** The statement both send, named as the gateway names it (a name per text). */
const SQL = { name: 'measure_select', text: 'select $1::int as n, now() as at' };

/** MikroORM 6's knex pool, as database/sql.ts used it: acquire, a named statement, release. */
async function knexSender(url: string): Promise<Sender> {
  const { MikroORM } = await import('@mikro-orm/postgresql');
  const { ormSettings } = await import('../src/database/orm-settings.js');
  const orm = await MikroORM.init({ ...ormSettings(url), entities: [], discovery: { warnWhenNoEntities: false } });
  interface Client {
    acquireConnection(): Promise<pg.PoolClient>;
    releaseConnection(connection: pg.PoolClient): Promise<unknown>;
    emit(event: string, data: unknown): void;
  }
  const client = orm.em.getConnection().getKnex().client as unknown as Client;
  return {
    async send(i) {
      const connection = await client.acquireConnection();
      try {
        client.emit('query', { sql: SQL.text, bindings: [i] });
        return (await connection.query({ ...SQL, values: [i] })).rows;
      } finally {
        await client.releaseConnection(connection);
      }
    },
    close: () => orm.close(),
  };
}

/** The gateway (database/database.ts): a pg.Pool of the same size, the same named statement. */
async function gatewaySender(url: string): Promise<Sender> {
  const { Database } = await import('../src/database/database.js');
  const database = new Database({ url });
  return { send: (i) => database.query('select ?::int as n, now() as at', [i]), close: () => database.close() };
}

/** CPU of this process (user + system) per statement, `inFlight` at a time, for `seconds`. */
async function cpuPerStatement(sender: Sender, inFlight: number, seconds: number): Promise<{ micros: number; perSecond: number }> {
  // Warm-up: every connection opened and its statement prepared, the JIT settled.
  const warm = Date.now() + 500;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = 0; Date.now() < warm; i++) await sender.send(i);
    }),
  );
  let count = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) await sender.send(count++);
    }),
  );
  const used = process.cpuUsage(cpu);
  const elapsed = (performance.now() - started) / 1000;
  return { micros: (used.user + used.system) / count, perSecond: count / elapsed };
}

/** In a fresh process: what opening the database costs, in time and resident memory. */
async function child(kind: string, url: string): Promise<void> {
  // What the service loads anyway (the schema, its resolvers and the entities, which are its
  // GraphQL types, with @mikro-orm/core for their decorators): not counted.
  await import('../src/graphql-server/schema.js');
  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  let close: () => Promise<void>;
  if (kind === 'service') {
    // A cluster worker's start: the database migrated already (MIGRATE_ON_START=false).
    const { loadConfig } = await import('../src/config.js');
    const { createLogger } = await import('../src/logger.js');
    const { startService } = await import('../src/service.js');
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: url,
      PORT: '0',
      MIGRATE_ON_START: 'false',
      DATA_DIR: tmpdir(),
      DATA_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      JWT_SECRET: 'x'.repeat(32),
    });
    const service = await startService(config, createLogger('silent'));
    close = () => service.stop();
  } else if (kind === 'mikro-orm') {
    // What service.ts did before issue 26: MikroORM's driver (knex) loaded, then MikroORM.init with the entities.
    const { MikroORM } = await import('@mikro-orm/postgresql');
    const { ormConfig } = await import('../mikro-orm.config.js');
    const orm = await MikroORM.init(ormConfig(url));
    await orm.em.getConnection().execute('select 1');
    close = () => orm.close();
  } else {
    const { Database } = await import('../src/database/database.js');
    const database = new Database({ url });
    await database.query('select 1');
    close = () => database.close();
  }
  const ms = performance.now() - started;
  globalThis.gc?.();
  const total = process.memoryUsage().rss;
  // Whether knex (and with it MikroORM's SQL driver and migrator) was loaded.
  const { createRequire } = await import('node:module');
  const knex = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node_modules/knex/'));
  await close();
  process.stdout.write(JSON.stringify({ ms, rssMb: (total - rssBefore) / 1024 / 1024, totalMb: total / 1024 / 1024, knex }));
}

async function main(): Promise<void> {
  if (args.child) return child(args.child, args.url!);
  const seconds = Number(args.seconds);
  const rounds = Number(args.rounds);
  const { startEmbeddedPostgres } = await import('../src/database/embedded-postgres.js');
  const { createLogger } = await import('../src/logger.js');
  const dataDir = await mkdtemp(join(tmpdir(), 'measure-database-'));
  const database = await startEmbeddedPostgres(dataDir, createLogger('silent'));
  try {
    console.log(`node ${process.version}; ${seconds} s per measurement, ${rounds} interleaved rounds (median)`);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const only = new Set(args.only.split(','));
    for (const inFlight of only.has('cpu') ? [1, 8] : []) {
      const results: Record<string, { micros: number[]; perSecond: number[] }> = {};
      for (let round = 0; round < rounds; round++) {
        for (const [name, make] of [
          ['knex pool (MikroORM 6)', knexSender],
          ['the gateway (pg.Pool)', gatewaySender],
        ] as const) {
          const sender = await make(database.url);
          const { micros, perSecond } = await cpuPerStatement(sender, inFlight, seconds);
          await sender.close();
          (results[name] ??= { micros: [], perSecond: [] }).micros.push(micros);
          results[name].perSecond.push(perSecond);
        }
      }
      for (const [name, { micros, perSecond }] of Object.entries(results))
        console.log(
          `${inFlight} in flight, ${name}: ${median(micros).toFixed(1)} µs CPU per statement, ${Math.round(median(perSecond))} statements/s`,
        );
    }
    await (await import('../src/database/migrate.js')).migrateDatabase(database.url, createLogger('silent'));
    for (const kind of [...(only.has('open') ? ['mikro-orm', 'pg-pool'] : []), ...(only.has('service') ? ['service'] : [])]) {
      const runs = Array.from(
        { length: rounds },
        () =>
          JSON.parse(
            execFileSync(process.execPath, [...process.execArgv, '--expose-gc', process.argv[1], '--child', kind, '--url', database.url], {
              encoding: 'utf8',
            }),
          ) as { ms: number; rssMb: number; totalMb: number; knex: boolean },
      );
      console.log(
        `${{ 'mikro-orm': 'load MikroORM, MikroORM.init (entities), select 1', 'pg-pool': 'new Database (a pg.Pool), select 1', service: 'startService (a worker: not migrating), from the schema loaded' }[kind]}: ${median(runs.map((run) => run.ms)).toFixed(0)} ms, +${median(runs.map((run) => run.rssMb)).toFixed(1)} MB RSS (${median(runs.map((run) => run.totalMb)).toFixed(0)} MB in all), knex ${runs.some((run) => run.knex) ? 'loaded' : 'not loaded'}`,
      );
    }
  } finally {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
