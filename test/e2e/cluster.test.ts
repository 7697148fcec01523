import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { sendOnNewConnection as send, type Outcome } from '../support/fresh-connection.js';
import { scrape } from '../support/prometheus.js';
import { createTestDatabase } from '../support/test-service.js';
import { answeredBy, logLines, startMain, stopMain, type Started } from '../support/service-process.js';
import { isAlive } from '../../src/database/embedded-postgres.js';

/**
 * WEB_CONCURRENCY=2 (spec section 1 "Running it", docs/operating.md "Operating it"): `node main` becomes a
 * node:cluster primary and two workers on one port. Real processes, real PostgreSQL, real HTTP.
 * Which worker answered is read from the access lines (each carries its process's `pid`), never
 * from an answer: nothing about the process is added to what callers see.
 */
/** Pids of the workers listening now: said so in the log, and still alive. */
function listeningWorkers(started: Started): number[] {
  const pids = logLines(started)
    .filter((line) => line.msg === 'listening' && line.pid !== started.child.pid)
    .map((line) => line.pid as number);
  return [...new Set(pids)].filter(isAlive);
}

/** The node processes the primary forked (the embedded PostgreSQL is its child too: not counted). */
function workerProcesses(primaryPid: number): number[] {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(primaryPid)], { encoding: 'utf8' })
    .trim()
    .split('\n');
  return lines.filter((line) => /main\.(ts|js)/.test(line)).map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Processes whose command line names `dataDir` (a PostgreSQL still holding it). */
function processesUsing(dataDir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A process's group id (the fifth field of /proc/<pid>/stat, after the parenthesised name). */
function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The embedded database's URL is not printed; read its port from postmaster.pid. */
async function databaseUrlOf(dataDir: string): Promise<string> {
  const lines = (await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n');
  return `postgres://postgres:postgres@127.0.0.1:${lines[3]}/postgres`;
}

const CLUSTER = { WEB_CONCURRENCY: '2', LOG_LEVEL: 'info', LOG_FORMAT: 'json' };

describe('WEB_CONCURRENCY=2: a primary and two workers on one port, on the embedded PostgreSQL', () => {
  let dataDir: string;
  let service: Started;
  let workers: number[];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'org-policy-cluster-'));
    service = await startMain({ ...CLUSTER, DATA_DIR: dataDir });
    workers = await waitFor(() => listeningWorkers(service).length === 2 && listeningWorkers(service), 'two workers listening');
  });
  afterAll(async () => {
    if (service?.child.exitCode === null) await stopMain(service.child);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('runs a primary and two workers, which both answer requests; the welcome is printed once', async () => {
    expect(workerProcesses(service.child.pid!).sort()).toEqual([...workers].sort());
    expect(workers).not.toContain(service.child.pid);
    expect(service.output().match(/^export TOKEN=/gm)).toHaveLength(1);

    const ids = Array.from({ length: 12 }, (_, i) => `spread-${i}`);
    for (const requestId of ids) {
      const answer = await send(service.url, 'GET', '/api/v1/organization/00000000-0000-4000-8000-000000000000', {
        token: service.token,
        requestId,
      });
      expect(answer).toMatchObject({ status: 404 });
    }
    const pids = await waitFor(() => answeredBy(service, ids).length === ids.length && answeredBy(service, ids), 'the access lines');
    expect(new Set(pids)).toEqual(new Set(workers));
  });

  it('reports on /metrics the requests of every worker, whichever worker takes the scrape', async () => {
    const route = { method: 'GET', route: '/api/v1/policy/:id', status: '404' };
    const before = await scrape(service.url);
    const ids = Array.from({ length: 20 }, (_, i) => `counted-${i}`);
    for (const requestId of ids)
      expect(await send(service.url, 'GET', '/api/v1/policy/987654', { token: service.token, requestId })).toMatchObject({ status: 404 });
    const pids = await waitFor(() => answeredBy(service, ids).length === ids.length && answeredBy(service, ids), 'the access lines');
    expect(new Set(pids).size).toBe(2);
    // Each scrape on a connection of its own: the primary hands them to the workers in turn.
    for (let i = 0; i < 4; i++) {
      const after = await scrape(service.url);
      expect(after.value('http_requests_total', route) - before.value('http_requests_total', route)).toBe(ids.length);
      expect(
        after.histogramCount('http_request_duration_seconds', route) - before.histogramCount('http_request_duration_seconds', route),
      ).toBe(ids.length);
      // Every worker's pools, summed; the queue's depth (the same count on each) once, not twice.
      expect(after.value('webhook_delivery_queue_depth')).toBe(0);
      expect(after.family('db_pool_connections')?.metrics.some((sample) => sample.labels?.pool === 'jobs')).toBe(true);
      expect(after.family('nodejs_version_info')?.metrics).toHaveLength(1);
    }
  });

  it('replaces a worker killed with SIGKILL, and keeps answering meanwhile', async () => {
    const [killed, kept] = workers;
    process.kill(killed, 'SIGKILL');
    await waitFor(() => logLines(service).some((line) => line.msg === `worker ${killed} exited, replacing it`), 'the replacement log line');
    // Meanwhile the other worker takes every new connection.
    for (let i = 0; i < 4; i++) expect(await send(service.url, 'GET', '/healthz')).toMatchObject({ status: 200 });
    // A scrape while the new worker is still starting is answered at once, by the workers that listen.
    await waitFor(
      () => logLines(service).some((line) => /^worker \d+ started$/.test(line.msg) && !workers.includes(line.worker)),
      'the new worker started',
    );
    const scraped = Date.now();
    expect(
      (await scrape(service.url)).value('http_requests_total', { method: 'GET', route: '/healthz', status: '200' }),
    ).toBeGreaterThanOrEqual(4);
    expect(Date.now() - scraped).toBeLessThan(2_000);
    workers = await waitFor(() => {
      const now = listeningWorkers(service);
      return now.length === 2 && !now.includes(killed) && now;
    }, 'a new worker listening');
    expect(workers).toContain(kept);
    expect(workerProcesses(service.child.pid!).sort()).toEqual([...workers].sort());

    const ids = Array.from({ length: 8 }, (_, i) => `after-kill-${i}`);
    for (const requestId of ids)
      expect(await send(service.url, 'GET', '/api/v1/policy/987654', { token: service.token, requestId })).toMatchObject({ status: 404 });
    const pids = await waitFor(() => answeredBy(service, ids).length === ids.length && answeredBy(service, ids), 'the access lines');
    expect(new Set(pids)).toEqual(new Set(workers));
  }, 60_000);

  it('on SIGTERM finishes the requests in flight on both workers, refuses new ones, stops PostgreSQL and exits 0 within 10 s', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `slow-${i}`);
    let slow: Array<Promise<Outcome>>;
    const client = new pg.Client({ connectionString: await databaseUrlOf(dataDir) });
    await client.connect();
    try {
      await client.query(`
        create function test_slow_insert() returns trigger language plpgsql as $$ begin perform pg_sleep(3); return new; end $$;
        create trigger test_slow before insert on organization for each row when (new.legal_name = 'Slow') execute function test_slow_insert();`);
      slow = ids.map((requestId) =>
        send(service.url, 'POST', '/api/v1/organization', {
          token: service.token,
          body: organizationBody({ legalName: 'Slow' }),
          requestId,
        }),
      );
      // All six are inside their insert when the signal comes.
      await waitFor(async () => {
        const { rows } = await client.query(
          `select count(*)::int as n from pg_stat_activity where query like '%insert into organization (%' and wait_event = 'PgSleep'`,
        );
        return rows[0].n === ids.length;
      }, 'the six slow inserts');
    } finally {
      await client.end();
    }
    const postmaster = Number((await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);

    const stopping = stopMain(service.child);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The port is closed while those requests still run: a new connection never reaches a worker.
    expect(await send(service.url, 'GET', '/healthz')).toMatchObject({ error: expect.stringMatching(/^(ECONNREFUSED|ECONNRESET)$/) });
    const answers = await Promise.all(slow);
    for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: { name: 'Slow' } });
    const { code, ms } = await stopping;
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    // They were in flight on both workers.
    expect(new Set(answeredBy(service, ids))).toEqual(new Set(workers));
    // Nothing is left running: no worker, no PostgreSQL holding the data directory.
    expect(workers.filter(isAlive)).toEqual([]);
    expect(isAlive(postmaster)).toBe(false);
    expect(processesUsing(dataDir)).toEqual([]);
  });
});

describe('WEB_CONCURRENCY=2 and Ctrl-C', () => {
  it('stops every process once when SIGINT reaches the whole process group; PostgreSQL, in a group of its own, stops last', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-cluster-'));
    const service = await startMain({ ...CLUSTER, DATA_DIR: dataDir }, { detached: true });
    try {
      const workers = await waitFor(() => listeningWorkers(service).length === 2 && listeningWorkers(service), 'two workers listening');
      const started = Date.now();
      const exited = new Promise<number | null>((resolve) => service.child.once('close', resolve));
      process.kill(-service.child.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(workers.filter(isAlive)).toEqual([]);
      expect(processesUsing(dataDir)).toEqual([]);
      // Each process stopped once: by its own SIGINT, or by the primary's SIGTERM when that came
      // first (the two race); the other signal then changed nothing.
      const stopping = logLines(service).filter(
        (line) => line.msg === 'shutting down' || line.msg === 'shutting down: draining the workers',
      );
      expect(stopping.map((line) => line.pid).sort()).toEqual([service.child.pid!, ...workers].sort());
      expect(stopping.find((line) => line.pid === service.child.pid)?.signal).toBe('SIGINT');
      for (const line of stopping) expect(['SIGINT', 'SIGTERM']).toContain(line.signal);
      expect(logLines(service).filter((line) => line.msg === 'stopped')).toHaveLength(1);
      expect(service.output()).not.toMatch(/Unhandled|uncaught|Start-up failed/i);
    } finally {
      if (service.child.exitCode === null) process.kill(-service.child.pid!, 'SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('Ctrl-C under load (issue 25 F2)', () => {
  it.each(['2', '1'])(
    'WEB_CONCURRENCY=%s: answers 200 to every request it answers while SIGINT reaches the whole process group; PostgreSQL stops last',
    async (concurrency) => {
      const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-cluster-'));
      const service = await startMain({ ...CLUSTER, WEB_CONCURRENCY: concurrency, DATA_DIR: dataDir }, { detached: true });
      let postmaster = 0;
      try {
        if (concurrency === '2') await waitFor(() => listeningWorkers(service).length === 2, 'two workers listening');
        const closed = new Promise<number | null>((resolve) => service.child.once('close', resolve));
        let exited = false;
        void closed.then(() => (exited = true));
        const created = await send(service.url, 'POST', '/api/v1/organization', { token: service.token, body: organizationBody() });
        expect(created).toMatchObject({ status: 200 });
        const orgId = (created as { body: { id: string } }).body.id;

        // Creates that take a second each (a trigger sleeps in their insert): some are surely
        // inside the database when the signal comes, as they were when a developer pressed Ctrl-C.
        const client = new pg.Client({ connectionString: await databaseUrlOf(dataDir) });
        await client.connect();
        await client.query(`
        create function test_slow_insert() returns trigger language plpgsql as $$ begin perform pg_sleep(1); return new; end $$;
        create trigger test_slow before insert on organization for each row when (new.legal_name = 'Slow') execute function test_slow_insert();`);

        // Four clients, each a steady stream of reads and creates, each request on a connection
        // of its own, until the port is closed or the service has exited.
        const outcomes: Array<{ outcome: Outcome }> = [];
        const stream = async (slow: boolean) => {
          for (let i = 0; !exited; i++) {
            const outcome =
              i % 2 === 0 || slow
                ? await send(service.url, 'POST', '/api/v1/organization', {
                    token: service.token,
                    body: organizationBody({ legalName: slow ? 'Slow' : `Load ${i}` }),
                  })
                : await send(service.url, 'GET', `/api/v1/organization/${orgId}`, { token: service.token });
            outcomes.push({ outcome });
            if ('error' in outcome) break;
          }
        };
        const clients = [stream(false), stream(false), stream(true), stream(true)];
        await waitFor(() => outcomes.length >= 20, 'twenty answers before the signal');
        await waitFor(async () => {
          const { rows } = await client.query(
            `select count(*)::int as n from pg_stat_activity where query like '%insert into organization (%' and wait_event = 'PgSleep'`,
          );
          return rows[0].n === 2;
        }, 'two slow inserts in flight');
        await client.end();
        postmaster = Number((await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
        // PostgreSQL is in a process group of its own: the group's SIGINT does not reach it.
        expect(processGroupOf(postmaster)).not.toBe(service.child.pid);

        const slowAnswers = () => outcomes.filter(({ outcome }) => 'status' in outcome && outcome.body?.name === 'Slow').length;
        const slowBefore = slowAnswers();
        process.kill(-service.child.pid!, 'SIGINT');
        expect(await closed).toBe(0);
        await Promise.all(clients);

        const answered = outcomes.flatMap(({ outcome }) => ('status' in outcome ? [outcome] : []));
        expect(answered.length).toBeGreaterThan(20);
        // Not one 503 (or any other failure) among the answers: the database outlived the drain.
        expect(answered.filter((answer) => answer.status !== 200)).toEqual([]);
        // A request that got no answer found the port closed (refused), or reached the listening
        // socket in the instant it closed, before a worker took it (reset): nothing else.
        for (const { outcome } of outcomes) if ('error' in outcome) expect(outcome.error).toMatch(/^(ECONNREFUSED|ECONNRESET)$/);
        // The slow creates in flight at the signal (each slow client spends all but an instant of
        // each second inside one) were finished, not cut.
        expect(slowAnswers()).toBeGreaterThan(slowBefore);
        const output = service.output();
        expect(output).not.toContain('57P01');
        expect(output).not.toMatch(/^\s+at /m);
        expect(logLines(service).filter((line) => line.level >= 40)).toEqual([]);
        if (concurrency === '2') expect(logLines(service).filter((line) => line.msg === 'stopped')).toHaveLength(1);
        // PostgreSQL is gone, and nothing holds the data directory.
        expect(isAlive(postmaster)).toBe(false);
        expect(processesUsing(dataDir)).toEqual([]);
      } finally {
        if (service.child.exitCode === null && service.child.signalCode === null) process.kill(-service.child.pid!, 'SIGKILL');
        // Only when the test failed: the PostgreSQL it left running.
        if (postmaster && isAlive(postmaster)) process.kill(postmaster, 'SIGINT');
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});

describe('Ctrl-C during start-up', () => {
  // PostgreSQL runs in a process group of its own, so only the service stops it: a Ctrl-C before
  // the service has started must stop it too, not end the service and leave it running.
  it.each(['2', '1'])(
    'WEB_CONCURRENCY=%s: SIGINT to the group while the embedded PostgreSQL is up but nothing listens yet stops everything, exit 0',
    async (concurrency) => {
      const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-cluster-'));
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { PATH: process.env.PATH, ...CLUSTER, WEB_CONCURRENCY: concurrency, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
      let postmaster = 0;
      try {
        // PostgreSQL is up (its pid file names its port once it listens); the migrations follow.
        postmaster = await waitFor(
          async () => {
            const lines = (await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
            return lines.length > 7 && /ready/.test(lines[7]) && Number(lines[0]);
          },
          'the embedded PostgreSQL',
          60_000,
        );
        expect(output).not.toMatch(/listening/);
        process.kill(-child.pid!, 'SIGINT');
        expect(await closed, output).toBe(0);
        expect(isAlive(postmaster)).toBe(false);
        expect(processesUsing(dataDir)).toEqual([]);
        expect(output).not.toMatch(/Unhandled|uncaught|Start-up failed|57P01/i);
      } finally {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
        // Only when the test failed: the PostgreSQL it left running.
        if (postmaster && isAlive(postmaster)) process.kill(postmaster, 'SIGINT');
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    90_000,
  );
});

describe('WEB_CONCURRENCY with DATABASE_URL', () => {
  it('migrates once in the primary; workers exit when the primary is killed with SIGKILL', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-cluster-'));
    const databaseUrl = await createTestDatabase();
    const service = await startMain({ ...CLUSTER, DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    try {
      const workers = await waitFor(() => listeningWorkers(service).length === 2 && listeningWorkers(service), 'two workers listening');
      expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
      // The migrations were applied by the primary alone.
      const applied = logLines(service).filter((line) => /\[migrator\] Applied/.test(line.msg ?? ''));
      expect(applied.length).toBeGreaterThan(0);
      expect(new Set(applied.map((line) => line.pid))).toEqual(new Set([service.child.pid]));
      expect(await send(service.url, 'GET', '/readyz')).toMatchObject({ status: 200 });

      service.child.kill('SIGKILL');
      await waitFor(() => workers.every((pid) => !isAlive(pid)), 'the workers to exit', 5_000);
    } finally {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('stops, exit code 1, when no worker can start (here the port is taken), rather than replacing them forever', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-cluster-'));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          PATH: process.env.PATH,
          ...CLUSTER,
          DATA_DIR: dataDir,
          DATABASE_URL: await createTestDatabase(),
          PORT: String((taken.address() as AddressInfo).port),
          HOST: '127.0.0.1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      expect(await new Promise((resolve) => child.once('close', resolve)), output).toBe(1);
      expect(output).toContain('Start-up failed: bind EADDRINUSE');
      expect(output).toContain('exited before listening: start-up failed');
      expect(output).not.toContain('replacing it');
      const workers = output
        .split('\n')
        .filter((line) => line.includes('"msg":"worker ') && line.includes(' started"'))
        .map((line) => JSON.parse(line).worker as number);
      expect(workers).toHaveLength(2);
      expect(workers.filter(isAlive)).toEqual([]);
    } finally {
      taken.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it.each(['0', 'abc', '65'])('refuses WEB_CONCURRENCY=%s before forking anything, naming the variable', async (value) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, WEB_CONCURRENCY: value, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(1);
    expect(output.trim()).toBe(`Configuration error: WEB_CONCURRENCY must be an integer from 1 to 64 (got "${value}")`);
  });
});
