import { createConnection } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request, type TestResponse } from '../support/http.js';
import { expectRateLimited, rateLimit } from '../support/rate-limit-fields.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Per-caller limits of contract section 12, over HTTP: each budget answers 429 with
 * `Retry-After` and the IETF `RateLimit` fields once spent, recovers when its window resets,
 * and never touches another caller. Windows are 2 s here (RATE_LIMIT_WINDOW_SECONDS), so a
 * per-minute budget of 300 allows 10 a window. The budgets the operation core charges (GraphQL
 * cost, a GraphQL create's) in process: test/in-process/rate-limits.
 */
describe('rate limits', () => {
  describe('requests per sub and unauthenticated requests per address', () => {
    const service = useTestService({
      RATE_LIMIT_WINDOW_SECONDS: '2',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '300',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '150',
    });
    let alice: string;
    let bob: string;

    beforeAll(async () => {
      alice = await service.token({ sub: 'alice' });
      bob = await service.token({ sub: 'bob' });
    });

    it('counts down every answer, refuses the 11th request of a window with 429, spares other callers, and resets', async () => {
      await sleep(2000 - (Date.now() % 2000) + 50); // start near the beginning of a window
      const remaining: number[] = [];
      for (let i = 0; i < 10; i++) {
        const response = await request(service.url, 'GET', '/api/v1/organization/3f1b6d1e-3c38-4a53-9d5b-1a2b3c4d5e6f', { token: alice });
        expect(response.status).toBe(404); // missing, but counted all the same
        expect(response.headers.get('ratelimit-policy')).toBe('"requests";q=10;w=2');
        remaining.push(rateLimit(response).requests.r);
      }
      expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      const asked = Date.now();
      const refused = await request(service.url, 'GET', '/api/v1/organization/3f1b6d1e-3c38-4a53-9d5b-1a2b3c4d5e6f', { token: alice });
      expectRateLimited(refused, 'requests');
      // A refusal is answered after a pause, so a client retrying in a loop cannot spin the service.
      expect(Date.now() - asked).toBeGreaterThanOrEqual(900);
      expect(refused.body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
      // GraphQL gets the same limit as an HTTP 429 with extensions.code.
      const graphqlRefused = await graphql(service.url, '{ viewer { sub } }', {}, alice);
      expectRateLimited(graphqlRefused, 'requests');
      expect(graphqlRefused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      // Another caller is not affected.
      expect((await graphql(service.url, '{ viewer { sub } }', {}, bob)).status).toBe(200);
      // The window resets after the seconds it announced.
      await sleep(Number(refused.headers.get('retry-after')) * 1000 + 100);
      const again = await graphql(service.url, '{ viewer { sub } }', {}, alice);
      expect(again.status).toBe(200);
      expect(rateLimit(again).requests.r).toBe(9);
    });

    it('counts unauthenticated requests, refused tokens included, against the client address', async () => {
      await sleep(2000 - (Date.now() % 2000) + 50);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await request(service.url, 'GET', '/api/v1/policy/1', { token: i % 2 ? 'not-a-token' : undefined });
        statuses.push(response.status);
        expect(response.headers.get('ratelimit-policy')).toBe('"anonymous";q=5;w=2');
      }
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      expectRateLimited(await request(service.url, 'GET', '/api/v1/openapi.json'), 'anonymous');
      // Health checks are never limited.
      expect((await request(service.url, 'GET', '/healthz')).status).toBe(200);
      // An authenticated caller from the same address has its own budget.
      expect((await request(service.url, 'GET', '/api/v1/policy/1', { token: bob })).status).toBe(404);
    });
  });

  describe('unauthenticated requests behind a trusted proxy (TRUST_PROXY as a list)', () => {
    const service = useTestService({ TRUST_PROXY: 'loopback, 10.0.0.0/8', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2' });
    const from = (address: string) => request(service.url, 'GET', '/api/v1/policy/1', { headers: { 'x-forwarded-for': address } });

    it('counts each client behind the proxy by the address the proxy forwarded', async () => {
      expect((await from('203.0.113.7')).status).toBe(401);
      expect((await from('203.0.113.7')).status).toBe(401);
      expectRateLimited(await from('203.0.113.7'), 'anonymous');
      expect((await from('203.0.113.8')).status).toBe(401);
    });
  });

  describe('creates per sub, across instances', () => {
    const env = { RATE_LIMIT_CREATES_PER_MINUTE: '4' };
    const first = useTestService(env);
    let token: string;
    beforeAll(async () => {
      ({ token } = await createRootOrganization(first));
      // The root organization above was alice's first create of this minute.
    });
    // Started after the root organization was created, and stopped before the first.
    const second = useTestService(env, { sameDatabaseAs: first });

    it('shares one budget between two instances, REST and GraphQL, and refuses before reading the body', async () => {
      const one = await request(first.url, 'POST', '/api/v1/policy', { token, body: policyBody() });
      expect(one.status).toBe(200);
      expect(rateLimit(one).creates.r).toBe(2);
      const two = await graphql(
        second.url,
        'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { number } }',
        { i: policyBody() },
        token,
      );
      expect(two.status).toBe(200);
      expect(rateLimit(two).creates.r).toBe(1);
      expect((await request(second.url, 'POST', '/api/v1/organization', { token, body: organizationBody() })).status).toBe(200);
      const before = await first.sql<{ n: string }>('select count(*) as n from policy');
      // Over the budget on either instance: 429, even with a body that is not JSON, and nothing written.
      const refused = await request(first.url, 'POST', '/api/v1/policy', { token, body: '{not json' });
      expectRateLimited(refused, 'creates');
      expect(refused.body.code).toBe('RATE_LIMITED');
      const refusedGraphql = await graphql(
        second.url,
        'mutation ($i: CreatePolicyInput!) { createPolicy(input: $i) { number } }',
        { i: policyBody() },
        token,
      );
      expectRateLimited(refusedGraphql, 'creates');
      expect(refusedGraphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(await first.sql('select count(*) as n from policy')).toEqual(before);
      // Reads are not creates.
      expect((await request(second.url, 'GET', `/api/v1/policy/${one.body.number}`, { token })).status).toBe(200);
      // Another caller creates freely.
      const other = await first.token({ sub: 'carol' });
      expect((await request(first.url, 'POST', '/api/v1/organization', { token: other, body: organizationBody() })).status).toBe(200);
    });
  });

  describe('creates window reset', () => {
    const service = useTestService({ RATE_LIMIT_WINDOW_SECONDS: '2', RATE_LIMIT_CREATES_PER_MINUTE: '60' });
    let token: string;
    beforeAll(async () => {
      ({ token } = await createRootOrganization(service));
    });

    it('allows creates again once the window has passed', async () => {
      let response: TestResponse;
      do response = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody() });
      while (response.status === 200);
      expectRateLimited(response, 'creates');
      await sleep(Number(response.headers.get('retry-after')) * 1000 + 100);
      expect((await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody() })).status).toBe(200);
    });
  });

  describe('requests in flight per sub', () => {
    const service = useTestService({ RATE_LIMIT_CONCURRENT_REQUESTS: '2' });
    let token: string;
    beforeAll(async () => {
      ({ token } = await createRootOrganization(service));
      // Policies named "Slow" take 600 ms to insert, so three of them surely overlap.
      await service.sql(`
        create function test_slow_insert() returns trigger language plpgsql as $$
        begin perform pg_sleep(0.6); return new; end $$;
        create trigger test_slow before insert on policy for each row when (new.pet_name = 'Slow') execute function test_slow_insert();
      `);
    });

    it('refuses a third request while two are running, and accepts it once they finish', async () => {
      const slow = () => request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ petName: 'Slow' }) });
      const running = [slow(), slow()];
      await sleep(200);
      const third = await request(service.url, 'GET', '/api/v1/policy/1', { token });
      expectRateLimited(third, 'concurrency');
      expect(third.headers.get('ratelimit-policy')).toContain('"concurrency";q=2;qu="concurrent-requests"');
      expect((await Promise.all(running)).map((response) => response.status)).toEqual([200, 200]);
      expect((await request(service.url, 'GET', '/api/v1/policy/1', { token })).status).not.toBe(429);
      // Another caller is not affected even while alice is at her limit.
      const other = await service.token({ sub: 'bob' });
      const busy = [slow(), slow()];
      await sleep(200);
      expect((await request(service.url, 'GET', '/api/v1/policy/1', { token: other })).status).toBe(404);
      await Promise.all(busy);
    });
  });

  describe('requests in flight when clients leave early', () => {
    const service = useTestService({ RATE_LIMIT_CONCURRENT_REQUESTS: '4' });

    it('gives back the place of a client that left while its token was checked', async () => {
      const { port } = new URL(service.url);
      // New tokens each time: each is verified (asynchronously) before the request is admitted.
      for (let i = 0; i < 8; i++) {
        const token = await service.token({ sub: 'leaver', expiresIn: 3600 + i });
        const socket = createConnection(Number(port), '127.0.0.1', () => {
          socket.write(`GET /api/v1/policy/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
          socket.destroy();
        });
        socket.on('error', () => undefined);
      }
      await sleep(300);
      const after = await request(service.url, 'GET', '/api/v1/policy/1', { token: await service.token({ sub: 'leaver' }) });
      expect(after.status).toBe(404);
    });
  });

  describe('limits set to 0', () => {
    const service = useTestService({
      RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
      RATE_LIMIT_CREATES_PER_MINUTE: '0',
      RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_WINDOW_SECONDS: '60',
    });

    it('are off: no RateLimit fields and no 429', async () => {
      const token = await service.token({ sub: 'load-test' });
      for (let i = 0; i < 20; i++) {
        const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
        expect(response.status).toBe(200);
        expect(response.headers.get('ratelimit')).toBeNull();
      }
    });
  });
});
