import { RequestContext, TransactionContext } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { CreatePolicyDocument } from '../generated/graphql.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { createWebhookEndpoint, execute, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * On Node 20 the first use of any AsyncLocalStorage turns on a hook for every promise of the
 * process, which cost every later request 13-17% more CPU (docs/benchmark.md). MikroORM's
 * `transactional` and `RequestContext` use one; the service's creates must not wake them. Test
 * files share their worker's process (vitest.config.ts, isolate: false), so no test may use
 * them either: this one would then fail, depending on the order files run in.
 */
describe('async context', () => {
  const service = useTestService();

  it('stays off through every kind of create, with and without an Idempotency-Key', async () => {
    const alice = await service.token({ sub: 'alice' });
    const organization = await request(service.url, 'POST', '/api/v1/organization', {
      token: alice,
      body: organizationBody(),
      headers: { 'idempotency-key': 'async-1' },
    });
    expect(organization.status).toBe(200);
    const token = await service.token({ sub: 'alice', org: organization.body.id });
    expect((await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody() })).status).toBe(200);
    expect(
      (await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody(), headers: { 'idempotency-key': 'async-2' } }))
        .status,
    ).toBe(200);
    expect((await execute(service.url, CreatePolicyDocument, { input: policyBody() as never }, token)).status).toBe(200);
    expect((await createWebhookEndpoint(service.url, token, organization.body.id, 'http://127.0.0.1:9/hooks')).body.errors).toBeUndefined();
    // Node 20's AsyncLocalStorage enables its promise hook on first use (`enabled`); later Node
    // versions build it on AsyncContextFrame, without that field and without the hook.
    for (const holder of [TransactionContext, RequestContext]) {
      const { storage } = holder as unknown as { storage: { enabled?: boolean } };
      expect(storage.enabled ?? false).toBe(false);
    }
  });
});
