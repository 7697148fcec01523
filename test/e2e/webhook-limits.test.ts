import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * Contract section 12, "Webhooks are fair between trees": what a receiver and an event's
 * deliveries may cost. What one tree may register: test/in-process/webhook-limits.
 */

async function until<T>(probe: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("a receiver's answer is read up to 64 KB (security review 2, L9)", () => {
  // The timeout is long enough that only a cut connection, not the time limit, ends the attempt.
  const service = useTestService({
    WEBHOOK_TIMEOUT_SECONDS: '20',
    WEBHOOK_RETRY_BASE_SECONDS: '60',
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
  });
  const servers: Server[] = [];
  afterAll(() => servers.forEach((server) => server.close()));

  it('decides the attempt on the status and drops the connection, while the receiver streams an endless body', async () => {
    let sent = 0;
    let closedAt: number | undefined;
    const endless = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        // As fast as the service reads, for as long as the connection stays open.
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) sent += chunk.length;
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => (closedAt = Date.now()));
        pump();
      });
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    servers.push(endless);
    const token = await service.token({ sub: 'big-answer' });
    const root = (await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() })).body.id as string;
    const created = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: { url: `http://127.0.0.1:${(endless.address() as AddressInfo).port}/`, organizationId: root, events: ['policy.created'] },
    });
    expect(created.status, created.text).toBe(200);
    expect((await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: root }) })).status).toBe(200);

    const delivery = await until(async () => {
      const [row] = await service.sql<{ status: string; attempts: number; last_status: number | null; last_error: string | null }>(
        `select d.status, d.attempts, d.last_status, d.last_error from webhook_delivery d where d.endpoint_id = $1`,
        [created.body.id],
      );
      return row && row.attempts > 0 ? row : undefined;
    }, 'the first attempt');
    expect(delivery).toEqual({ status: 'delivered', attempts: 1, last_status: 200, last_error: null });
    await until(async () => closedAt !== undefined, 'the receiver to see its connection closed');
    // Closed by the service after a bounded read (what the receiver wrote includes what the
    // sockets' buffers held); the old code drained it until the 20 s limit, a failed attempt.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe("an event's deliveries (security review 2, L3)", () => {
  // The quota is raised above the 25 deliveries an event shows; no delivery is attempted.
  const service = useTestService({ WEBHOOK_DELIVERY: 'false', WEBHOOK_ENDPOINTS_PER_TREE: '30', RATE_LIMIT_CONCURRENT_REQUESTS: '0' });
  const EVENT = `query ($id: ID!) { event(id: $id) { deliveries { endpointId lastError } } }`;

  it("show a child's principal only the deliveries to endpoints it may read, never its ancestors'", async () => {
    const alice = await service.token({ sub: 'l3-alice' });
    const root = (await request(service.url, 'POST', '/api/v1/organization', { token: alice, body: organizationBody() })).body.id as string;
    const child = (await request(service.url, 'POST', '/api/v1/organization', { token: alice, body: organizationBody({ parentId: root }) }))
      .body.id as string;
    const endpoint = async (organizationId: string, token: string) =>
      (
        await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
          token,
          body: { url: 'http://127.0.0.1:1/internal-hook', organizationId, events: ['policy.created'] },
        })
      ).body.id as string;
    const rootEndpoint = await endpoint(root, alice);
    const dave = await service.token({ sub: 'l3-dave', org: child });
    const childEndpoint = await endpoint(child, dave);
    expect((await request(service.url, 'GET', `/api/v1/webhook-endpoints/${rootEndpoint}`, { token: dave })).status).toBe(404);

    const policy = await request(service.url, 'POST', '/api/v1/policy', { token: dave, body: policyBody({ organizationId: child }) });
    expect(policy.status, policy.text).toBe(200);
    const [{ id: eventId }] = await service.sql<{ id: string }>(
      `select id from event where organization_id = $1 and type = 'policy.created'`,
      [child],
    );
    await service.sql(`update webhook_delivery set last_error = 'connect ECONNREFUSED 127.0.0.1:1' where event_id = $1`, [eventId]);

    const asDave = await request(service.url, 'GET', `/api/v1/events/${eventId}`, { token: dave });
    expect(asDave.status).toBe(200);
    expect(asDave.body.deliveries.map((delivery: { endpointId: string }) => delivery.endpointId)).toEqual([childEndpoint]);
    const daveGraphql = await graphql(service.url, EVENT, { id: eventId }, dave);
    expect(daveGraphql.body.data.event.deliveries).toEqual([{ endpointId: childEndpoint, lastError: 'connect ECONNREFUSED 127.0.0.1:1' }]);
    const asAlice = await request(service.url, 'GET', `/api/v1/events/${eventId}`, { token: alice });
    expect(asAlice.body.deliveries.map((delivery: { endpointId: string }) => delivery.endpointId).sort()).toEqual(
      [rootEndpoint, childEndpoint].sort(),
    );
  });

  it('shows at most 25 deliveries of an event, as the cost model charges', async () => {
    const owner = await service.token({ sub: 'l3-many' });
    const root = (await request(service.url, 'POST', '/api/v1/organization', { token: owner, body: organizationBody() })).body.id as string;
    for (let i = 0; i < 30; i++) {
      const created = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
        token: owner,
        body: { url: `http://127.0.0.1:1/h${i}`, organizationId: root },
      });
      expect(created.status, created.text).toBe(200);
    }
    expect(
      (await request(service.url, 'POST', '/api/v1/policy', { token: owner, body: policyBody({ organizationId: root }) })).status,
    ).toBe(200);
    const [{ id: eventId }] = await service.sql<{ id: string }>(
      `select id from event where organization_id = $1 and type = 'policy.created'`,
      [root],
    );
    expect((await service.sql('select 1 from webhook_delivery where event_id = $1', [eventId])).length).toBe(30);
    const read = await request(service.url, 'GET', `/api/v1/events/${eventId}`, { token: owner });
    expect(read.body.deliveries).toHaveLength(25);
  });
});
