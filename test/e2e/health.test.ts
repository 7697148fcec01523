import { describe, expect, it } from 'vitest';
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
    await service.orm.getMigrator().up();
    const ready = await request(service.url, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });
});
