import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { expectProblem, graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';
import { eventually } from '../support/eventually.js';

/**
 * Contract section 22, the deliveries a caller asks for, on a real service, PostgreSQL and HTTP
 * receivers: a test event (to one endpoint, out of the lists, verified with `standardwebhooks`,
 * attempted at once while the endpoint is backed off), a redelivery (a new delivery of one event
 * to one endpoint that receives it), and a recovery (an endpoint disabled by PATCH gets nothing;
 * enabled again, new events; a recovery since the outage began delivers each missed event once).
 * Every route is 404 (or, for the endpoint named in a body, 400) from another tree.
 */

interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver answering `status()` to each request, keeping every one. */
async function receiver(status: () => number = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ id: String(req.headers['webhook-id']), headers: req.headers, body });
      res.statusCode = status();
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('test events, redeliveries and recoveries (contract section 22)', () => {
  // A failed attempt backs its endpoint off by 0.5-1 s, and a delivery fails after 2 attempts.
  const service = useTestService({ WEBHOOK_RETRY_BASE_SECONDS: '1', WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_TIMEOUT_SECONDS: '2' });
  const servers: Server[] = [];
  let token: string;
  let root: string;
  let strangerToken: string;

  const post = (path: string, body: unknown, as = token, headers: Record<string, string> = {}) =>
    request(service.url, 'POST', path, { token: as, body, headers });
  const createPolicy = async () => {
    const response = await post('/api/v1/policy', policyBody({ organizationId: root }));
    expect(response.status, response.text).toBe(200);
    const [{ id }] = await service.sql<{ id: string }>(
      `select id from event where type = 'policy.created' and data -> 'object' ->> 'id' = $1`,
      [response.body.id],
    );
    return id;
  };
  const createEndpoint = async (url: string, body: Record<string, unknown> = {}, as = token) => {
    const response = await post('/api/v1/webhook-endpoints', { url, ...body }, as);
    expect(response.status, response.text).toBe(200);
    return response.body as { id: string; secret: string };
  };
  const listedEventIds = async () => {
    const response = await request(service.url, 'GET', '/api/v1/events?limit=100', { token });
    expect(response.status, response.text).toBe(200);
    return (response.body.data as Array<{ id: string }>).map((event) => event.id);
  };

  beforeAll(async () => {
    const owner = await service.token({ sub: 'redeliverer' });
    root = (await request(service.url, 'POST', '/api/v1/organization', { token: owner, body: organizationBody({ legalName: 'Hooks' }) }))
      .body.id;
    token = await service.token({ sub: 'redeliverer', org: root });
    const strangerOwner = await service.token({ sub: 'stranger' });
    const strangerRoot = (
      await request(service.url, 'POST', '/api/v1/organization', { token: strangerOwner, body: organizationBody({ legalName: 'Other' }) })
    ).body.id;
    strangerToken = await service.token({ sub: 'stranger', org: strangerRoot });
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  describe('a test event', () => {
    it('goes to that endpoint only, signed, at once though the endpoint is backed off, and stays out of the lists', async () => {
      const hooks = await receiver();
      const other = await receiver();
      servers.push(hooks.server, other.server);
      const endpoint = await createEndpoint(hooks.url, { events: ['policy.created'] });
      await createEndpoint(other.url);
      // Backed off for an hour after failures: an ordinary delivery would wait that long.
      await service.sql(
        `update webhook_endpoint set failures = 3, failing_since = now(), retry_at = now() + interval '1 hour' where id = $1`,
        [endpoint.id],
      );

      // As `curl -X POST .../test` sends it: no body at all.
      const sent = await request(service.url, 'POST', `/api/v1/webhook-endpoints/${endpoint.id}/test`, { token });
      expect(sent.status, sent.text).toBe(200);
      expect(Object.keys(sent.body).sort()).toEqual(['deliveryId', 'eventId']);
      await eventually(async () => hooks.received.length === 1, 'the test event at the receiver', 10_000);
      const [delivery] = hooks.received;
      expect(delivery.id).toBe(sent.body.eventId);
      new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>);
      const event = JSON.parse(delivery.body);
      expect(event).toMatchObject({
        id: sent.body.eventId,
        type: 'webhook.test',
        organizationId: root,
        data: { object: { endpointId: endpoint.id } },
      });
      expect(event.actor).toEqual({ sub: 'redeliverer', apiKeyId: null });

      // Its success ended the back-off; it went to no other endpoint, and no list shows it.
      await eventually(
        async () =>
          (await service.sql<{ retry_at: Date | null }>('select retry_at from webhook_endpoint where id = $1', [endpoint.id]))[0]
            .retry_at === null,
        'the back-off cleared',
      );
      await pause(1_500);
      expect(other.received).toEqual([]);
      expect(await listedEventIds()).not.toContain(sent.body.eventId);
      const subtree = await request(service.url, 'GET', `/api/v1/events?organizationId=${root}&limit=100`, { token });
      expect((subtree.body.data as Array<{ id: string }>).map((item) => item.id)).not.toContain(sent.body.eventId);
      // Read by id, with its delivery.
      const read = await request(service.url, 'GET', `/api/v1/events/${sent.body.eventId}`, { token });
      expect(read.status, read.text).toBe(200);
      expect(read.body.deliveries).toEqual([
        expect.objectContaining({
          id: sent.body.deliveryId,
          eventId: sent.body.eventId,
          endpointId: endpoint.id,
          status: 'delivered',
          attempts: 1,
        }),
      ]);
      const attempts = await request(service.url, 'GET', `/api/v1/webhook-endpoints/${endpoint.id}/attempts`, { token });
      expect(attempts.body.data[0]).toMatchObject({ eventId: sent.body.eventId, deliveryId: sent.body.deliveryId, responseStatus: 200 });
    });

    it('is sent over GraphQL too; an Idempotency-Key replays it, one event made', async () => {
      const hooks = await receiver();
      servers.push(hooks.server);
      const endpoint = await createEndpoint(hooks.url);
      const answer = await graphql(
        service.url,
        'mutation ($id: ID!) { sendTestWebhook(id: $id) { eventId deliveryId } }',
        { id: endpoint.id },
        token,
      );
      expect(answer.body.errors).toBeUndefined();
      const keyed = () => post(`/api/v1/webhook-endpoints/${endpoint.id}/test`, {}, token, { 'idempotency-key': 'test-once' });
      const first = await keyed();
      const again = await keyed();
      expect(first.status, first.text).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      await eventually(async () => hooks.received.length === 2, 'both test events');
      await pause(1_000);
      expect(hooks.received.map((item) => item.id).sort()).toEqual([answer.body.data.sendTestWebhook.eventId, first.body.eventId].sort());
    });

    it('is refused to a disabled endpoint (409), with a body field (400), and out of reach (404)', async () => {
      const endpoint = await createEndpoint('http://127.0.0.1:9/off');
      const disabled = await request(service.url, 'PATCH', `/api/v1/webhook-endpoints/${endpoint.id}`, { token, body: { enabled: false } });
      expect(disabled.status, disabled.text).toBe(200);
      const refused = await post(`/api/v1/webhook-endpoints/${endpoint.id}/test`, {});
      expectProblem(refused, 409, 'INVALID_STATE');
      expect(refused.body.detail).toMatch(/disabled \(disabled by request\); enable it first/);
      const field = await post(`/api/v1/webhook-endpoints/${endpoint.id}/test`, { type: 'policy.created' });
      expectProblem(field, 400, 'BAD_USER_INPUT');
      expect(field.body.errors).toEqual([{ path: 'type', message: 'is not a field of this request' }]);
      expectProblem(await post(`/api/v1/webhook-endpoints/${endpoint.id}/test`, {}, strangerToken), 404, 'NOT_FOUND');
      expectProblem(await post('/api/v1/webhook-endpoints/not-a-uuid/test', {}), 404, 'NOT_FOUND');
      expect(
        await service.sql(`select 1 from event where type = 'webhook.test' and data -> 'object' ->> 'endpointId' = $1`, [endpoint.id]),
      ).toEqual([]);
    });
  });

  describe('a redelivery', () => {
    it('delivers the event once more as a new delivery, over REST and GraphQL', async () => {
      const hooks = await receiver();
      servers.push(hooks.server);
      const endpoint = await createEndpoint(hooks.url, { events: ['policy.created'] });
      const eventId = await createPolicy();
      await eventually(async () => hooks.received.some((item) => item.id === eventId), 'the first delivery');

      const again = await post(`/api/v1/events/${eventId}/redeliveries`, { endpointId: endpoint.id });
      expect(again.status, again.text).toBe(200);
      expect(again.body).toMatchObject({
        eventId,
        endpointId: endpoint.id,
        status: 'pending',
        attempts: 0,
        lastStatus: null,
        deliveredAt: null,
      });
      expect(Object.keys(again.body).sort()).toEqual(
        [
          'attempts',
          'deliveredAt',
          'endpointId',
          'eventId',
          'id',
          'lastAttemptAt',
          'lastError',
          'lastStatus',
          'nextAttemptAt',
          'status',
        ].sort(),
      );
      const viaGraphql = await graphql(
        service.url,
        'mutation ($id: ID!, $endpointId: ID!) { redeliverEvent(id: $id, endpointId: $endpointId) { id status } }',
        { id: eventId, endpointId: endpoint.id },
        token,
      );
      expect(viaGraphql.body.errors).toBeUndefined();
      await eventually(async () => hooks.received.filter((item) => item.id === eventId).length === 3, 'two redeliveries');
      new Webhook(endpoint.secret).verify(hooks.received.at(-1)!.body, hooks.received.at(-1)!.headers as Record<string, string>);
      // Recorded just after the receiver answered.
      const mine = async () => {
        const read = await request(service.url, 'GET', `/api/v1/events/${eventId}`, { token });
        return (read.body.deliveries as Array<{ id: string; endpointId: string; status: string }>).filter(
          (delivery) => delivery.endpointId === endpoint.id,
        );
      };
      await eventually(async () => (await mine()).every((delivery) => delivery.status === 'delivered'), 'all three recorded delivered');
      expect((await mine()).map((delivery) => delivery.id)).toContain(again.body.id);
      expect(await mine()).toHaveLength(3);
    });

    it('is 400 on endpointId for an endpoint that does not receive the event, or is out of reach; 404 for an event out of reach', async () => {
      const filtered = await createEndpoint('http://127.0.0.1:9/cancelled-only', { events: ['policy.cancelled'] });
      const strangers = await createEndpoint('http://127.0.0.1:9/theirs', {}, strangerToken);
      const eventId = await createPolicy();
      for (const endpointId of [filtered.id, strangers.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
        const refused = await post(`/api/v1/events/${eventId}/redeliveries`, { endpointId });
        expectProblem(refused, 400, 'BAD_USER_INPUT');
        expect(refused.body.errors).toEqual([
          { path: 'endpointId', message: expect.stringMatching(/^is not a webhook endpoint that receives this event/) },
        ]);
      }
      const missing = await post(`/api/v1/events/${eventId}/redeliveries`, {});
      expectProblem(missing, 400, 'BAD_USER_INPUT');
      expect(missing.body.errors.map((error: { path: string }) => error.path)).toEqual(['endpointId']);
      const typo = await post(`/api/v1/events/${eventId}/redeliveries`, { endpointID: filtered.id });
      expect(typo.body.errors).toContainEqual({
        path: 'endpointID',
        message: 'is not a field of this request; did you mean "endpointId"?',
      });
      expectProblem(await post(`/api/v1/events/${eventId}/redeliveries`, { endpointId: strangers.id }, strangerToken), 404, 'NOT_FOUND');
      expect(
        await service.sql('select 1 from webhook_delivery where endpoint_id = any($1::uuid[])', [[filtered.id, strangers.id]]),
      ).toEqual([]);
    });
  });

  describe('a recovery', () => {
    it('after an outage by PATCH: nothing while disabled, new events once enabled, each missed event once by the recovery', async () => {
      const hooks = await receiver();
      servers.push(hooks.server);
      const endpoint = await createEndpoint(hooks.url, { events: ['policy.created'] });
      const before = await createPolicy();
      await eventually(async () => hooks.received.some((item) => item.id === before), 'the event before the outage');

      const outageBegan = new Date(Date.now() - 1_000).toISOString();
      const off = await request(service.url, 'PATCH', `/api/v1/webhook-endpoints/${endpoint.id}`, { token, body: { enabled: false } });
      expect(off.body.status).toBe('disabled');
      const missed = [await createPolicy(), await createPolicy(), await createPolicy()];
      await pause(2_000);
      expect(hooks.received.map((item) => item.id)).toEqual([before]);

      const on = await request(service.url, 'PATCH', `/api/v1/webhook-endpoints/${endpoint.id}`, { token, body: { enabled: true } });
      expect(on.body.status).toBe('active');
      const after = await createPolicy();
      await eventually(async () => hooks.received.some((item) => item.id === after), 'a new event once enabled');
      expect(hooks.received.map((item) => item.id)).toEqual([before, after]);

      const recovered = await post(`/api/v1/webhook-endpoints/${endpoint.id}/recovery`, { since: outageBegan });
      expect(recovered.status, recovered.text).toBe(200);
      expect(recovered.body).toEqual({ queued: 3 });
      await eventually(async () => hooks.received.length === 5, 'the missed events');
      // Once each: nothing more arrives, and a second recovery finds nothing missing.
      const again = await graphql(
        service.url,
        'mutation ($id: ID!, $since: String!) { recoverWebhookEndpoint(id: $id, input: { since: $since }) { queued } }',
        { id: endpoint.id, since: outageBegan },
        token,
      );
      expect(again.body).toEqual({ data: { recoverWebhookEndpoint: { queued: 0 } } });
      await pause(2_000);
      expect(hooks.received.map((item) => item.id).sort()).toEqual([before, after, ...missed].sort());
    });

    it('delivers again the events whose deliveries failed, once, and two recoveries at once queue each event once', async () => {
      let failing = true;
      const hooks = await receiver(() => (failing ? 500 : 200));
      servers.push(hooks.server);
      const endpoint = await createEndpoint(hooks.url, { events: ['policy.created'] });
      const since = new Date(Date.now() - 1_000).toISOString();
      const events = [await createPolicy(), await createPolicy()];
      await eventually(
        async () =>
          (await service.sql<{ status: string }>('select status from webhook_delivery where endpoint_id = $1', [endpoint.id])).every(
            (row) => row.status === 'failed',
          ),
        'both deliveries failed (two attempts each)',
      );
      failing = false;
      const [first, second] = await Promise.all([
        post(`/api/v1/webhook-endpoints/${endpoint.id}/recovery`, { since }),
        post(`/api/v1/webhook-endpoints/${endpoint.id}/recovery`, { since }),
      ]);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(first.body.queued + second.body.queued).toBe(2);
      await eventually(async () => hooks.received.filter((item) => events.includes(item.id)).length === 6, 'each event once more');
      await pause(1_500);
      expect(hooks.received.filter((item) => events.includes(item.id))).toHaveLength(6);
    });

    it('is 400 for a since more than 30 days ago, in the future or not a time; 409 disabled; 404 out of reach', async () => {
      const endpoint = await createEndpoint('http://127.0.0.1:9/recover');
      const cases: Array<[unknown, string]> = [
        [new Date(Date.now() - 31 * 86_400_000).toISOString(), 'must be at most 30 days ago, and not in the future'],
        [new Date(Date.now() + 3_600_000).toISOString(), 'must be at most 30 days ago, and not in the future'],
        ['yesterday', 'must be an RFC 3339 date-time, e.g. 2026-12-04T10:00:00Z'],
      ];
      for (const [since, message] of cases) {
        const refused = await post(`/api/v1/webhook-endpoints/${endpoint.id}/recovery`, { since });
        expectProblem(refused, 400, 'BAD_USER_INPUT');
        expect(refused.body.errors).toEqual([{ path: 'since', message }]);
      }
      const since = new Date().toISOString();
      expectProblem(await post(`/api/v1/webhook-endpoints/${endpoint.id}/recovery`, { since }, strangerToken), 404, 'NOT_FOUND');
      await request(service.url, 'PATCH', `/api/v1/webhook-endpoints/${endpoint.id}`, { token, body: { enabled: false } });
      expectProblem(await post(`/api/v1/webhook-endpoints/${endpoint.id}/recovery`, { since }), 409, 'INVALID_STATE');
    });
  });
});
