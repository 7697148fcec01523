import { beforeAll, describe, expect, it } from 'vitest';
import { print } from 'graphql';
import { CreatePolicyDocument } from '../generated/graphql.js';
import { policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Idempotency-Key over HTTP (contract section 7): a replay as the host writes it, on both
 * surfaces. Everything else about keys, through the operation core: test/in-process/idempotency.
 */
describe('idempotency keys over HTTP', () => {
  const service = useTestService();
  let token: string;
  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it.each([
    ['REST', '/api/v1/policy', policyBody({ petName: 'Once REST' })],
    ['GraphQL', '/graphql', { query: print(CreatePolicyDocument), variables: { input: policyBody({ petName: 'Once GraphQL' }) } }],
  ] as const)('%s: replays the identical response, with Idempotent-Replayed, and creates once', async (surface, path, body) => {
    const send = () => request(service.url, 'POST', path, { token, body, headers: { 'idempotency-key': `http-${surface}` } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await service.sql('select 1 from policy where pet_name = $1', [`Once ${surface}`])).toHaveLength(1);
  });
});
