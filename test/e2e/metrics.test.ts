import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { createWebhookEndpoint, graphql, request } from '../support/http.js';
import { scrape } from '../support/prometheus.js';
import { useTestService } from '../support/test-service.js';

/** `/metrics` (spec section 13), read with a Prometheus text-format parser. */
describe('metrics', () => {
  // Three creates a minute (an organization, an endpoint and a policy), so that a fourth is
  // refused and counted; FindPolicy is a declared operation name (contract section 13).
  const service = useTestService({ RATE_LIMIT_CREATES_PER_MINUTE: '3', METRICS_OPERATION_NAMES: 'FindPolicy' });
  let token: string;
  let organizationId: string;
  let hooks: Server;

  beforeAll(async () => {
    token = await service.token({ sub: 'metered' });
    const organization = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(organization.status).toBe(200);
    organizationId = organization.body.id;
    hooks = createServer((req, res) => req.resume().on('end', () => res.end()));
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => hooks?.close(resolve)));

  it('counts each request once, under its route pattern, method and status, and each GraphQL operation by name and code', async () => {
    const before = await scrape(service.url);
    for (let i = 0; i < 3; i++)
      expect((await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await request(service.url, 'GET', '/api/v1/policy/987654', { token })).status).toBe(404);
    expect((await request(service.url, 'GET', '/api/v1/policy/987654', { token: 'not-a-token' })).status).toBe(401);
    expect((await request(service.url, 'GET', `/no/such/path/${Date.now()}`, { token })).status).toBe(404);
    const missing = await graphql(service.url, 'query FindPolicy { policy(number: 987654) { number } }', {}, token);
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await graphql(service.url, '{ viewer { sub } }', {}, token)).status).toBe(200);
    const after = await scrape(service.url);

    const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
    expect(delta('http_requests_total', { method: 'GET', route: '/api/v1/organization/:id', status: '200' })).toBe(3);
    const latency = { method: 'GET', route: '/api/v1/organization/:id', status: '200' };
    expect(
      after.histogramCount('http_request_duration_seconds', latency) - before.histogramCount('http_request_duration_seconds', latency),
    ).toBe(3);
    expect(delta('http_requests_total', { method: 'GET', route: '/api/v1/policy/:id', status: '404' })).toBe(2);
    // Refused before any route ran: still counted under the route's pattern, not its path.
    expect(delta('http_requests_total', { method: 'GET', route: '/api/v1/policy/:id', status: '401' })).toBe(1);
    expect(delta('http_requests_total', { method: 'GET', route: '(unmatched)', status: '404' })).toBe(1);
    expect(delta('http_requests_total', { method: 'POST', route: '/graphql', status: '200' })).toBe(2);
    expect(delta('graphql_operations_total', { operation_name: 'FindPolicy', operation_type: 'query' })).toBe(1);
    expect(delta('graphql_operation_errors_total', { operation_name: 'FindPolicy', code: 'NOT_FOUND' })).toBe(1);
    expect(delta('graphql_operations_total', { operation_name: '(anonymous)', operation_type: 'query' })).toBe(1);
    expect(after.family('http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    // No path ever became a label value.
    expect(
      after.families
        .flatMap((family) => family.metrics)
        .some((sample) => Object.values(sample.labels ?? {}).some((value) => value.startsWith('/no/'))),
    ).toBe(false);
  });

  it('has the database pools, rate-limited requests, webhook deliveries and their queue, and the process defaults', async () => {
    const before = await scrape(service.url);
    const endpoint = await createWebhookEndpoint(
      service.url,
      token,
      organizationId,
      `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`,
    );
    expect(endpoint.body.errors).toBeUndefined();
    expect((await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId }) })).status).toBe(200);
    // Another caller's creates: three answered (404, the organization is not theirs), the fourth refused.
    const other = await service.token({ sub: 'limited' });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await request(service.url, 'POST', '/api/v1/policy', { token: other, body: policyBody({ organizationId }) })).status);
    expect(statuses).toEqual([404, 404, 404, 429]);
    let after = await scrape(service.url);
    for (
      let i = 0;
      i < 100 &&
      after.value('webhook_delivery_attempts_total', { result: 'delivered' }) ===
        before.value('webhook_delivery_attempts_total', { result: 'delivered' });
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await scrape(service.url);
    }
    expect(
      after.value('webhook_delivery_attempts_total', { result: 'delivered' }) -
        before.value('webhook_delivery_attempts_total', { result: 'delivered' }),
    ).toBe(1);
    expect(
      after.value('rate_limited_requests_total', { limit: 'creates' }) - before.value('rate_limited_requests_total', { limit: 'creates' }),
    ).toBe(1);
    expect(after.value('webhook_delivery_queue_depth')).toBe(0);
    for (const pool of ['service', 'jobs']) {
      for (const state of ['in_use', 'idle', 'waiting'])
        expect(
          after.family('db_pool_connections')?.metrics.some((sample) => sample.labels?.pool === pool && sample.labels.state === state),
        ).toBe(true);
    }
    expect(after.value('db_pool_connections', { pool: 'service', state: 'waiting' })).toBe(0);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(after.family(name), name).toBeDefined();
    }
  });
});

// Security review 3, L3 (review 2, L8): labels admitted by frequency let 120 invented names sent 5
// times each evict 20 real ones. Only declared names get a label: the trusted manifest's, the REST
// documents' and METRICS_OPERATION_NAMES (contract section 13).
describe('operation names in metrics', () => {
  const manifestPath = 'test/generated/persisted-documents.json';
  const frontend = Array.from({ length: 20 }, (_, i) => `Frontend${i}`);
  const service = useTestService({
    GRAPHQL_TRUSTED_DOCUMENTS: manifestPath,
    METRICS_OPERATION_NAMES: frontend.join(','),
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
  });

  it('labels the declared names alone: 120 invented names sent 5 times each are "(other)" and evict none', async () => {
    const token = await service.token({ sub: 'flooder' });
    const run = async (names: string[]) => {
      for (let start = 0; start < names.length; start += 50) {
        await Promise.all(
          names
            .slice(start, start + 50)
            .map(async (name) => expect((await graphql(service.url, `query ${name} { viewer { sub } }`, {}, token)).status).toBe(200)),
        );
      }
    };
    const before = await scrape(service.url);
    await run([...frontend, ...frontend, ...frontend]);
    const invented = Array.from({ length: 120 }, (_, i) => `Invented${i}`);
    await run([0, 1, 2, 3, 4].flatMap(() => invented));
    // A manifest document, sent once as its exact text (the trusted path), after the flood.
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
    const viewer = Object.values(manifest).find((text) => /^query \w+ \{ viewer \{/.test(text));
    expect(viewer).toBeDefined();
    expect((await graphql(service.url, viewer!, {}, token)).status).toBe(200);
    const trustedName = /^query (\w+)/.exec(viewer!)![1];
    // A REST document's name (rest/operations.ts), in a document of the caller's own.
    await run(['Organization']);

    const metrics = await scrape(service.url);
    const count = (name: string) =>
      metrics.value('graphql_operations_total', { operation_name: name, operation_type: 'query' }) -
      before.value('graphql_operations_total', { operation_name: name, operation_type: 'query' });
    expect(frontend.map(count)).toEqual(frontend.map(() => 3));
    expect(count(trustedName)).toBe(1);
    expect(count('Organization')).toBe(1);
    expect(count('(other)')).toBe(600);
    const series = metrics.family('graphql_operations_total')!.metrics;
    expect(series.filter((sample) => sample.labels?.operation_name.startsWith('Invented'))).toEqual([]);
  }, 120_000);
});

describe('metrics with METRICS_TOKEN', () => {
  const METRICS_TOKEN = 'scraper-token-0123456789';
  const service = useTestService({ METRICS_TOKEN });

  it('answers only the scraper that sends the token', async () => {
    expect((await fetch(`${service.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${service.url}/metrics`, { headers: { authorization: 'Bearer scraper-token-0123456780' } })).status).toBe(401);
    // A caller's JWT is not the metrics token.
    expect(
      (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${await service.token({ sub: 'someone' })}` } })).status,
    ).toBe(401);
    const scraped = await scrape(service.url, METRICS_TOKEN);
    expect(scraped.family('http_requests_total')).toBeDefined();
  });
});

describe('metrics in production without METRICS_TOKEN', () => {
  const service = useTestService({ NODE_ENV: 'production' });

  it('are not served', async () => {
    const answer = await request(service.url, 'GET', '/metrics');
    expect(answer.status).toBe(404);
  });
});
