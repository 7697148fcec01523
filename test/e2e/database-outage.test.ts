import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/database/embedded-postgres.js';
import { createLogger } from '../../src/logger.js';
import { organizationBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { startTestService, type TestService } from '../support/test-service.js';

/** PostgreSQL stops under the running service, then comes back on the same port. */
describe('when the database goes away', () => {
  let dataDir: string;
  let port: number;
  let database: EmbeddedDatabase | undefined;
  let service: TestService;
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'org-policy-outage-'));
    port = await freePort();
    database = await startEmbeddedPostgres(dataDir, createLogger('silent'), { port });
    service = await startTestService({}, { adminUrl: database.url });
    token = await service.token({ sub: 'alice' });
    const created = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    organizationId = created.body.id;
  });
  afterAll(async () => {
    await service?.stop().catch(() => undefined);
    await database?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After within 5 seconds, then recovers without a restart', async () => {
    await database!.stop();
    database = undefined;

    const calls = [
      () => request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token }),
      () => request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() }),
      () => request(service.url, 'GET', '/api/v1/policy/1', { token }),
      () => graphql(service.url, '{ coverages { slug } }', {}, token),
    ];
    for (const call of calls) {
      const started = Date.now();
      const response = await call();
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      const code = response.body.code ?? response.body.errors?.[0]?.extensions?.code;
      expect(code).toBe('UNAVAILABLE');
      expect(response.text).not.toMatch(/ECONNREFUSED|select|insert|127\.0\.0\.1|stack/i);
    }
    let notReady = await request(service.url, 'GET', '/readyz');
    for (let tries = 0; notReady.status !== 503 && tries < 40; tries++)
      notReady = (await new Promise((resolve) => setTimeout(resolve, 100)), await request(service.url, 'GET', '/readyz'));
    expect(notReady.status).toBe(503);
    expect((await request(service.url, 'GET', '/healthz')).status).toBe(200);

    database = await startEmbeddedPostgres(dataDir, createLogger('silent'), { port });
    let recovered = 0;
    for (let attempt = 0; attempt < 20 && recovered === 0; attempt++) {
      const response = await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token });
      if (response.status === 200) recovered = 1;
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(recovered).toBe(1);
    const created = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(created.status).toBe(200);
    // /readyz answers from a check at most a second old.
    let ready = await request(service.url, 'GET', '/readyz');
    for (let tries = 0; ready.status !== 200 && tries < 40; tries++)
      ready = (await new Promise((resolve) => setTimeout(resolve, 100)), await request(service.url, 'GET', '/readyz'));
    expect(ready.status).toBe(200);
  });
});
