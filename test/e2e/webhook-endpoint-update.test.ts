import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';
import { eventually } from '../support/eventually.js';

/**
 * Changing a webhook endpoint (contract section 22) on a real service, PostgreSQL and HTTP
 * receivers: the merge patch over REST and GraphQL, its refusals, its audit entry; disabling
 * (events made meanwhile are not delivered) and enabling again (new events are, at once: the
 * back-off is cleared); and a receiver's 410 Gone disabling its endpoint after one attempt.
 */

/** A receiver: answers with `statuses` in turn (then `otherwise`), and keeps every request's event id. */
async function receiver(statuses: number[] = [], otherwise = 200): Promise<{ url: string; received: string[]; server: Server }> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.statusCode = statuses.shift() ?? otherwise;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server };
}

const ENDPOINT_FIELDS = 'id url organizationId events description createdAt status disabledReason disabledAt rateLimitPerSecond';
const UPDATE = `mutation ($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { ${ENDPOINT_FIELDS} } }`;

describe('changing a webhook endpoint', () => {
  // A minute's back-off base: an endpoint backed off by a failure waits 30 to 60 s, far longer than the tests.
  const service = useTestService({
    WEBHOOK_RETRY_BASE_SECONDS: '60',
    WEBHOOK_TIMEOUT_SECONDS: '2',
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
  });
  const servers: Server[] = [];
  let token: string;
  let root: string;

  const createOrganization = async (legalName: string) => {
    const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody({ legalName }) });
    expect(response.status, response.text).toBe(200);
    return response.body.id as string;
  };
  const createPolicy = async (organizationId: string) => {
    const response = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId }) });
    expect(response.status, response.text).toBe(200);
    return response.body.id as string;
  };
  const createEndpoint = async (body: Record<string, unknown>) => {
    const response = await request(service.url, 'POST', '/api/v1/webhook-endpoints', { token, body });
    expect(response.status, response.text).toBe(200);
    return response.body as { id: string; url: string };
  };
  const patch = (id: string, body: unknown, headers: Record<string, string> = {}, as = token) =>
    request(service.url, 'PATCH', `/api/v1/webhook-endpoints/${id}`, {
      token: as,
      body,
      headers: { 'content-type': 'application/merge-patch+json', ...headers },
    });
  const read = async (id: string) => (await request(service.url, 'GET', `/api/v1/webhook-endpoints/${id}`, { token })).body;
  /** The event id of the policy.created event of policy `policyId`. */
  const eventOf = async (policyId: string) =>
    (
      await service.sql<{ id: string }>(`select id from event where type = 'policy.created' and data -> 'object' ->> 'id' = $1`, [policyId])
    )[0].id;
  const deliveriesOf = (endpointId: string) =>
    service.sql<{ event_id: string; status: string; attempts: number; last_status: number | null; last_error: string | null }>(
      'select event_id, status, attempts, last_status, last_error from webhook_delivery where endpoint_id = $1 order by created_at',
      [endpointId],
    );
  const healthOf = async (endpointId: string) =>
    (
      await service.sql<{ failures: number; failing_since: Date | null; retry_at: Date | null }>(
        'select failures, failing_since, retry_at from webhook_endpoint where id = $1',
        [endpointId],
      )
    )[0];

  beforeAll(async () => {
    const owner = await service.token({ sub: 'endpoint-changer' });
    const made = await request(service.url, 'POST', '/api/v1/organization', {
      token: owner,
      body: organizationBody({ legalName: 'Hooks' }),
    });
    root = made.body.id;
    token = await service.token({ sub: 'endpoint-changer', org: root });
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it('merges a patch over REST: the answer and the reads show it, null removes, the audit entry has the changes', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/before', events: ['policy.created'], description: 'ops' });
    const changed = await patch(created.id, {
      url: 'http://127.0.0.1:9/after',
      events: ['policy.created', 'policy.cancelled'],
      description: 'warehouse',
      rateLimitPerSecond: 50,
    });
    expect(changed.status, changed.text).toBe(200);
    const expected = {
      id: created.id,
      url: 'http://127.0.0.1:9/after',
      organizationId: root,
      events: ['policy.created', 'policy.cancelled'],
      description: 'warehouse',
      status: 'active',
      disabledReason: null,
      disabledAt: null,
      rateLimitPerSecond: 50,
    };
    expect(changed.body).toMatchObject(expected);
    expect(changed.body).not.toHaveProperty('secret');
    expect(await read(created.id)).toEqual(changed.body);
    const listed = await request(service.url, 'GET', `/api/v1/webhook-endpoints?organizationId=${root}`, { token });
    expect(listed.body.data.find((item: { id: string }) => item.id === created.id)).toEqual(changed.body);
    const graph = await graphql(
      service.url,
      `query ($id: ID!) { webhookEndpoint(id: $id) { ${ENDPOINT_FIELDS} } }`,
      { id: created.id },
      token,
    );
    expect(graph.body.data.webhookEndpoint).toEqual(changed.body);

    const [entry] = await service.sql<{ action: string; changes: unknown; targets: unknown; organization_id: string }>(
      `select action, changes, targets, organization_id from audit_entry where action = 'webhook_endpoint.update' and targets::jsonb @> $1::jsonb`,
      [JSON.stringify([{ type: 'webhook_endpoint', id: created.id }])],
    );
    expect(entry).toEqual({
      action: 'webhook_endpoint.update',
      organization_id: root,
      targets: [{ type: 'webhook_endpoint', id: created.id }],
      changes: {
        url: { from: 'http://127.0.0.1:9/before', to: 'http://127.0.0.1:9/after' },
        events: { from: ['policy.created'], to: ['policy.created', 'policy.cancelled'] },
        description: { from: 'ops', to: 'warehouse' },
        rateLimitPerSecond: { from: null, to: 50 },
      },
    });

    // null removes: every event type again, no description, no limit of its own; url kept (absent), as application/json too.
    const removed = await patch(
      created.id,
      { events: null, description: null, rateLimitPerSecond: null },
      { 'content-type': 'application/json' },
    );
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toMatchObject({ url: 'http://127.0.0.1:9/after', description: null, rateLimitPerSecond: null });
    expect(removed.body.events).toContain('organization.created');
    expect(removed.body.events.length).toBeGreaterThan(2);
    // Nothing to change: 200, the same endpoint.
    const same = await patch(created.id, {});
    expect(same.status).toBe(200);
    expect(same.body).toEqual(removed.body);
  });

  it('refuses a bad body with 400 listing every error, another tree’s endpoint with 404, and an entity tag with 412', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/refusals' });
    const refused = await patch(created.id, {
      url: 'ftp://example.com/hooks',
      events: ['policy.created', 'policy.exploded'],
      enabled: null,
      rateLimitPerSecond: 0,
      descripton: 'typo',
      organizationId: root,
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.code).toBe('BAD_USER_INPUT');
    const paths = (refused.body.errors as Array<{ path: string; message: string }>).map((error) => error.path).sort();
    expect(paths).toEqual(['descripton', 'enabled', 'events', 'organizationId', 'rateLimitPerSecond', 'url']);
    expect(refused.body.errors).toContainEqual({
      path: 'descripton',
      message: 'is not a field of this request; did you mean "description"?',
    });
    expect(refused.body.errors).toContainEqual({
      path: 'organizationId',
      message: 'cannot be changed: delete the endpoint and register one on the other organization',
    });
    expect((await patch(created.id, { url: null })).body.errors).toEqual([
      { path: 'url', message: 'is required: it cannot be removed (null)' },
    ]);
    expect((await patch(created.id, { rateLimitPerSecond: 1001 })).status).toBe(400);
    // Nothing was written.
    expect(await read(created.id)).toMatchObject({ url: 'http://127.0.0.1:9/refusals', status: 'active', rateLimitPerSecond: null });

    // Another tree's endpoint, a made-up id and a malformed one: 404, nothing written.
    const stranger = await service.token({ sub: 'endpoint-stranger' });
    const theirs = await patch(created.id, { description: 'mine now' }, {}, stranger);
    expect([theirs.status, theirs.body.code]).toEqual([404, 'NOT_FOUND']);
    expect((await patch(crypto.randomUUID(), { description: 'x' })).status).toBe(404);
    expect((await patch('not-an-id', { description: 'x' })).status).toBe(404);
    expect((await read(created.id)).description).toBeNull();

    // No version to match: an entity tag is 412, `*` passes.
    const tagged = await patch(created.id, { description: 'tagged' }, { 'if-match': '"1"' });
    expect([tagged.status, tagged.body.code]).toEqual([412, 'PRECONDITION_FAILED']);
    expect((await patch(created.id, { description: 'any' }, { 'if-match': '*' })).status).toBe(200);
    // A deleted endpoint is gone for changes too.
    expect((await request(service.url, 'DELETE', `/api/v1/webhook-endpoints/${created.id}`, { token })).status).toBe(204);
    expect((await patch(created.id, { description: 'x' })).status).toBe(404);
  });

  it('over GraphQL: the same change, the same refusals', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/graph' });
    const changed = await graphql(
      service.url,
      UPDATE,
      { id: created.id, input: { description: 'graph', events: ['quote.created'] } },
      token,
    );
    expect(changed.body.errors, changed.text).toBeUndefined();
    expect(changed.body.data.updateWebhookEndpoint).toMatchObject({ id: created.id, description: 'graph', events: ['quote.created'] });
    expect(await read(created.id)).toEqual(changed.body.data.updateWebhookEndpoint);

    const refused = await graphql(
      service.url,
      UPDATE,
      { id: created.id, input: { url: 'mailto:x@example.com', rateLimitPerSecond: 5000 } },
      token,
    );
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const paths = (refused.body.errors[0].extensions.errors as Array<{ path: string }>).map((error) => error.path);
    expect(paths.some((path) => path.endsWith('url'))).toBe(true);
    expect(paths.some((path) => path.endsWith('rateLimitPerSecond'))).toBe(true);
    const unknown = await graphql(service.url, UPDATE, { id: created.id, input: { organizationId: root } }, token);
    expect(unknown.body.errors?.[0]?.message).toContain('organizationId');

    const stranger = await service.token({ sub: 'endpoint-stranger' });
    const theirs = await graphql(service.url, UPDATE, { id: created.id, input: { description: 'mine now' } }, stranger);
    expect(theirs.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await read(created.id)).description).toBe('graph');
  });

  it('takes an Idempotency-Key on REST: a repeat is replayed, and after a crash rebuilt from the endpoint', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/keyed' });
    const headers = { 'idempotency-key': 'endpoint-patch-k1' };
    const first = await patch(created.id, { description: 'keyed' }, headers);
    expect(first.status, first.text).toBe(200);
    const again = await patch(created.id, { description: 'keyed' }, headers);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const entries = async () =>
      (
        await service.sql<{ n: number }>(
          `select count(*)::int as n from audit_entry where action = 'webhook_endpoint.update' and targets::jsonb @> $1::jsonb`,
          [JSON.stringify([{ type: 'webhook_endpoint', id: created.id }])],
        )
      )[0].n;
    expect(await entries()).toBe(1);
    await service.sql(`update idempotency_key set status = null, content_type = null, body = null where key = 'endpoint-patch-k1'`);
    const rebuilt = await patch(created.id, { description: 'keyed' }, headers);
    expect(rebuilt.status, rebuilt.text).toBe(200);
    expect(rebuilt.body).toEqual(first.body);
    expect(await entries()).toBe(1);
    expect((await patch(created.id, { description: 'other' }, headers)).status).toBe(422);
  });

  it('disabled by request gets nothing, not even what was made meanwhile; enabled again it gets new events at once, its back-off cleared', async () => {
    // The first attempt fails: the endpoint is backed off for 30 to 60 s.
    const hooks = await receiver([500]);
    servers.push(hooks.server);
    const tree = await createOrganization('Switched Tree');
    const endpoint = await createEndpoint({ url: hooks.url, organizationId: tree, events: ['policy.created'] });
    const failedFirst = await eventOf(await createPolicy(tree));
    await eventually(async () => (await deliveriesOf(endpoint.id))[0]?.attempts === 1, 'the failed first attempt');
    expect(hooks.received).toEqual([failedFirst]);
    expect((await healthOf(endpoint.id)).retry_at).not.toBeNull();

    const disabled = await patch(endpoint.id, { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body).toMatchObject({ status: 'disabled', disabledReason: 'disabled by request', disabledAt: expect.any(String) });
    expect(await read(endpoint.id)).toEqual(disabled.body);
    // Its pending delivery failed with it: only a recovery sends it again.
    expect(await deliveriesOf(endpoint.id)).toEqual([
      { event_id: failedFirst, status: 'failed', attempts: 1, last_status: 500, last_error: 'the endpoint is disabled' },
    ]);
    // Disabling again changes nothing, and keeps the reason.
    expect((await patch(endpoint.id, { enabled: false })).body).toEqual(disabled.body);

    const meanwhile = await eventOf(await createPolicy(tree));
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // the relay and the slots poll every second
    expect(hooks.received).toEqual([failedFirst]);
    expect((await deliveriesOf(endpoint.id)).map((delivery) => delivery.event_id)).not.toContain(meanwhile);

    const enabled = await patch(endpoint.id, { enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body).toMatchObject({ status: 'active', disabledReason: null, disabledAt: null });
    expect(await healthOf(endpoint.id)).toEqual({ failures: 0, failing_since: null, retry_at: null });

    // A new event is delivered within seconds, not after the back-off; the one made meanwhile never is.
    const after = await eventOf(await createPolicy(tree));
    await eventually(() => hooks.received.includes(after), 'the new event', 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(hooks.received).toEqual([failedFirst, after]);
    const deliveries = await deliveriesOf(endpoint.id);
    expect(deliveries.map((delivery) => [delivery.event_id, delivery.status])).toEqual([
      [failedFirst, 'failed'],
      [after, 'delivered'],
    ]);

    // The audit entries name the switch as reads show it.
    const entries = await service.sql<{ changes: unknown }>(
      `select changes from audit_entry where action = 'webhook_endpoint.update' and targets::jsonb @> $1::jsonb order by seq`,
      [JSON.stringify([{ type: 'webhook_endpoint', id: endpoint.id }])],
    );
    expect(entries.map((entry) => entry.changes)).toEqual([
      { status: { from: 'active', to: 'disabled' }, disabledReason: { from: null, to: 'disabled by request' } },
      {},
      { status: { from: 'disabled', to: 'active' }, disabledReason: { from: 'disabled by request', to: null } },
    ]);
  });

  it('over GraphQL, enabled: false and true switch it the same way', async () => {
    const created = await createEndpoint({ url: 'http://127.0.0.1:9/graph-switch' });
    const off = await graphql(service.url, UPDATE, { id: created.id, input: { enabled: false } }, token);
    expect(off.body.data.updateWebhookEndpoint).toMatchObject({ status: 'disabled', disabledReason: 'disabled by request' });
    const on = await graphql(service.url, UPDATE, { id: created.id, input: { enabled: true } }, token);
    expect(on.body.data.updateWebhookEndpoint).toMatchObject({ status: 'active', disabledReason: null, disabledAt: null });
    const nulled = await graphql(service.url, UPDATE, { id: created.id, input: { enabled: null } }, token);
    expect(nulled.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('a receiver answering 410 Gone disables its endpoint after one attempt', async () => {
    const gone = await receiver([], 410);
    servers.push(gone.server);
    const tree = await createOrganization('Gone Tree');
    const endpoint = await createEndpoint({ url: gone.url, organizationId: tree, events: ['policy.created'] });
    const first = await eventOf(await createPolicy(tree));
    const disabled = await eventually(async () => {
      const body = await read(endpoint.id);
      return body.status === 'disabled' ? body : undefined;
    }, 'the endpoint disabled');
    expect(disabled).toMatchObject({ status: 'disabled', disabledReason: '410 Gone', disabledAt: expect.any(String) });
    expect(await deliveriesOf(endpoint.id)).toEqual([
      { event_id: first, status: 'failed', attempts: 1, last_status: 410, last_error: null },
    ]);
    // Nothing more is sent to it: a new event gets no delivery, and the first is not retried.
    await createPolicy(tree);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(gone.received).toEqual([first]);
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
    // Enabled again by request, it is active.
    expect((await patch(endpoint.id, { enabled: true })).body).toMatchObject({ status: 'active', disabledReason: null });
  });
});
