import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../src/database/migrate.js';
import { createLogger } from '../../src/logger.js';
import { request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

describe('health endpoints', () => {
  // A fresh database with migrations not applied: alive, but not ready.
  const service = useTestService({ MIGRATE_ON_START: 'false' });

  it('answers /healthz while the process runs and /readyz only once migrations are applied, without a token', async () => {
    expect((await request(service.url, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    const notReady = await request(service.url, 'GET', '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body.code).toBe('UNAVAILABLE');
    await migrateDatabase(service.databaseUrl, createLogger('silent'));
    // The answer comes from a check at most a second old.
    let ready = await request(service.url, 'GET', '/readyz');
    for (let tries = 0; ready.status !== 200 && tries < 40; tries++)
      ready = (await sleep(100), await request(service.url, 'GET', '/readyz'));
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('checks the database for /readyz at most once a second, whatever the request rate', async () => {
    // A check is one read of the migrator's table, on the service's gateway.
    let checks = 0;
    const stop = service.database.onStatement(({ text }) => {
      if (text.includes('mikro_orm_migrations')) checks++;
    });
    try {
      const started = performance.now();
      // Rounds of 30 concurrent calls for 2.5 s, so that checks are due more than once, and on a
      // busy machine (where a round can take over a second) until the second check came, for
      // 20 s at most.
      let requests = 0;
      while ((performance.now() - started < 2500 || checks < 2) && performance.now() - started < 20_000) {
        requests += 30;
        const answers = await Promise.all(Array.from({ length: 30 }, () => request(service.url, 'GET', '/readyz')));
        expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(200));
      }
      const seconds = (performance.now() - started) / 1000;
      // Hundreds of requests; one check per second elapsed (plus the one at the start) at most.
      expect(requests).toBeGreaterThan(60);
      expect(checks).toBeGreaterThanOrEqual(2);
      expect(checks).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    } finally {
      stop();
    }
  });
});
