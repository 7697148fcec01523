import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * Events and webhooks (spec section 11) against real HTTP receivers that verify each delivery
 * with the `standardwebhooks` package, not with the service's code.
 */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver: answers with `statuses` in turn (then 200), and keeps every request. */
async function receiver(statuses: number[] = []): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received, server };
}

const CREATE_ENDPOINT = `mutation ($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { id url organizationId events secret createdAt }
}`;

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('events and webhooks', () => {
  // The tests poll the events' delivery state: the GraphQL cost budget is off here.
  const service = useTestService({
    WEBHOOK_RETRY_BASE_SECONDS: '1',
    WEBHOOK_MAX_ATTEMPTS: '4',
    WEBHOOK_TIMEOUT_SECONDS: '2',
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
  });
  const servers: Server[] = [];
  let token: string;
  const org: Record<string, string> = {};

  const createOrganization = async (body: Record<string, unknown>) => {
    const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody(body) });
    expect(response.status, response.text).toBe(200);
    return response.body.id as string;
  };
  const createPolicy = async (organizationId: string, extra: Record<string, unknown> = {}) => {
    const response = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId, cvc: '987', ...extra }),
    });
    expect(response.status, response.text).toBe(200);
    return response.body.number as number;
  };
  const createEndpoint = async (input: Record<string, unknown>, as = token) => {
    const response = await graphql(service.url, CREATE_ENDPOINT, { input }, as);
    expect(response.body.errors, response.text).toBeUndefined();
    return response.body.data.createWebhookEndpoint as { id: string; secret: string; events: string[] };
  };
  const eventsOf = async (organizationId: string) => {
    const response = await graphql(
      service.url,
      `query ($id: ID!) { organization(id: $id) { events(first: 10) { edges { node { id type organizationId data
        deliveries { endpointId status attempts lastStatus lastError nextAttemptAt deliveredAt } } } } } }`,
      { id: organizationId },
      token,
    );
    expect(response.body.errors, response.text).toBeUndefined();
    return response.body.data.organization.events.edges.map((edge: { node: unknown }) => edge.node) as Array<{
      id: string;
      type: string;
      organizationId: string;
      data: { object: Record<string, unknown> };
      deliveries: Array<{ endpointId: string; status: string; attempts: number; lastStatus: number | null }>;
    }>;
  };

  /** The first delivery of an organization's first policy.created event, once `ready` holds of it. */
  const firstPolicyDelivery = async (
    organizationId: string,
    ready: (delivery: { status: string; attempts: number } | undefined) => boolean,
    what: string,
    ms?: number,
  ) => {
    const [event] = await until(
      async () => {
        const events = (await eventsOf(organizationId)).filter((candidate) => candidate.type === 'policy.created');
        return ready(events[0]?.deliveries[0]) ? events : undefined;
      },
      what,
      ms,
    );
    return event.deliveries[0];
  };

  beforeAll(async () => {
    token = await service.token({ sub: 'hooks-owner' });
    org.root = await createOrganization({ legalName: 'Hooks Root' });
    org.branch = await createOrganization({ legalName: 'Branch', parentId: org.root });
    org.sibling = await createOrganization({ legalName: 'Sibling', parentId: org.root });
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it('delivers every event of a subtree once, signed the Standard Webhooks way; a sibling endpoint gets none', async () => {
    const branchHooks = await receiver();
    const siblingHooks = await receiver();
    servers.push(branchHooks.server, siblingHooks.server);
    const branchEndpoint = await createEndpoint({ url: branchHooks.url, organizationId: org.branch });
    await createEndpoint({ url: siblingHooks.url, organizationId: org.sibling });
    expect(branchEndpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(branchEndpoint.events).toEqual([
      'organization.created',
      'organization.updated',
      'policy.created',
      'policy.changed',
      'policy.cancelled',
      'policy.reinstated',
      'policy.renewed',
      'policy.payment_recorded',
      'policy.refund_recorded',
      'policy.past_due',
      'quote.created',
    ]);

    const leaf = await createOrganization({
      legalName: 'Leaf',
      parentId: org.branch,
      bankAccounts: [{ nickname: 'ops', routing: '110000000', account: '000123456789' }],
      owners: [{ firstname: 'Ada', lastname: 'Lovelace', taxId: '123-45-6789', ownership: 100 }],
    });
    const numbers = [await createPolicy(org.branch), await createPolicy(leaf), await createPolicy(leaf)];
    // A change (contract section 15): its event carries the earlier values, masked as reads mask them.
    const changed = await request(service.url, 'PATCH', `/api/v1/organization/${leaf}`, {
      token,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { bankAccounts: [{ routing: '110000000', account: '000987654321' }] },
    });
    expect(changed.status, changed.text).toBe(200);

    await until(() => branchHooks.received.length >= 5 || undefined, 'five deliveries');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // nothing more may come
    expect(branchHooks.received).toHaveLength(5);
    expect(siblingHooks.received).toHaveLength(0);

    const verifier = new Webhook(branchEndpoint.secret);
    const events = branchHooks.received.map(({ headers, body }) => verifier.verify(body, headers as Record<string, string>) as any);
    // At least once, possibly out of order (receivers deduplicate by webhook-id).
    expect(events.map((event) => event.type).sort()).toEqual([
      'organization.created',
      'organization.updated',
      'policy.created',
      'policy.created',
      'policy.created',
    ]);
    expect(events.find((event) => event.type === 'organization.updated').data).toMatchObject({
      object: { id: leaf, version: 2, bankAccounts: [{ nickname: null, routing: '110000000', accountLast4: '4321' }] },
      previousAttributes: { bankAccounts: [{ nickname: 'ops', routing: '110000000', accountLast4: '6789' }] },
    });
    expect(
      events
        .filter((event) => event.type === 'policy.created')
        .map((event) => event.data.object.number)
        .sort(),
    ).toEqual([...numbers].sort());
    expect(events.find((event) => event.type === 'organization.created').data.object).toMatchObject({
      id: leaf,
      parentId: org.branch,
      bankAccounts: [{ nickname: 'ops', routing: '110000000', accountLast4: '6789' }],
      owners: [{ firstname: 'Ada', taxIdLast4: '6789' }],
    });
    expect(new Set(events.map((event) => event.id)).size).toBe(5);
    for (const { headers } of branchHooks.received) expect(headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);

    // Never a cvc, an account number or an owner tax id, on the wire.
    for (const { body } of branchHooks.received) {
      expect(body).not.toMatch(/"cvc"|"account"|"taxId":"\d{3}-\d{2}-/);
      expect(body).not.toContain('000123456789');
      expect(body).not.toContain('123-45-6789');
      expect(body).not.toContain('000987654321');
    }

    // A tampered body, or an old timestamp, fails the same verification.
    const [first] = branchHooks.received;
    expect(() => verifier.verify(first.body.replace('{', '{ '), first.headers as Record<string, string>)).toThrow();
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    const resigned = {
      ...first.headers,
      'webhook-timestamp': old,
      'webhook-signature': verifier.sign(String(first.headers['webhook-id']), new Date(Number(old) * 1000), first.body),
    };
    expect(() => verifier.verify(first.body, resigned as unknown as Record<string, string>)).toThrow();

    // The delivery state is on the event.
    const delivered = new Set(events.map((event) => event.id));
    const listed = (await eventsOf(org.branch)).filter((event) => delivered.has(event.id));
    expect(listed).toHaveLength(5);
    for (const event of listed) {
      expect(event.deliveries).toEqual([
        expect.objectContaining({ endpointId: branchEndpoint.id, status: 'delivered', attempts: 1, lastStatus: 200 }),
      ]);
    }
  });

  it('retries with backoff: 500 three times, then 200, is delivered on the fourth attempt, all visible on the event', async () => {
    const flaky = await receiver([500, 500, 500]);
    servers.push(flaky.server);
    const own = await createOrganization({ legalName: 'Flaky Tree' });
    await createEndpoint({ url: flaky.url, organizationId: own, events: ['policy.created'] });
    await createPolicy(own);
    const delivery = await firstPolicyDelivery(own, (delivery) => delivery?.status === 'delivered', 'the fourth attempt', 30_000);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 4, lastStatus: 200 });
    expect(flaky.received).toHaveLength(4);
  });

  it('does not follow a redirect: a 302 is a failed attempt, and the other address gets nothing', async () => {
    const elsewhere = await receiver();
    const redirecting = createServer((_req, res) => {
      res.writeHead(302, { location: elsewhere.url });
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    servers.push(elsewhere.server, redirecting);
    const own = await createOrganization({ legalName: 'Redirect Tree' });
    await createEndpoint({
      url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`,
      organizationId: own,
      events: ['policy.created'],
    });
    await createPolicy(own);
    const delivery = await firstPolicyDelivery(own, (delivery) => (delivery?.attempts ?? 0) >= 1, 'the first attempt');
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 302 });
    expect(elsewhere.received).toHaveLength(0);
  });

  it('marks a delivery failed after the configured attempts when nothing answers', async () => {
    const gone = await receiver();
    servers.push(gone.server);
    await new Promise<void>((resolve) => gone.server.close(() => resolve()));
    const own = await createOrganization({ legalName: 'Dead End Tree' });
    await createEndpoint({ url: gone.url, organizationId: own, events: ['policy.created'] });
    await createPolicy(own);
    const delivery = await firstPolicyDelivery(own, (delivery) => delivery?.status === 'failed', 'the last attempt', 40_000);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, lastStatus: null });
  });

  it('over REST: endpoints are created, read without their secret, listed and deleted; events are listed and read with their deliveries', async () => {
    const hooks = await receiver();
    servers.push(hooks.server);
    const own = await createOrganization({ legalName: 'REST Tree' });
    const created = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: { url: hooks.url, organizationId: own, events: ['policy.created'], description: 'ops' },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ url: hooks.url, organizationId: own, events: ['policy.created'], description: 'ops' });
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id as string;
    const read = await request(service.url, 'GET', `/api/v1/webhook-endpoints/${id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    const listed = await request(service.url, 'GET', `/api/v1/webhook-endpoints?organizationId=${own}`, { token });
    expect(listed.body).toMatchObject({ data: [{ id }], hasMore: false, nextCursor: null });

    // Idempotency-Key: the retry gets the same answer, secret included; the kept answer is
    // sealed at rest; after a crash (no kept answer) it is rebuilt from the endpoint's row.
    const keyedBody = { url: hooks.url, organizationId: own, events: ['organization.created'] };
    const headers = { 'idempotency-key': 'endpoint-k1' };
    const keyed = await request(service.url, 'POST', '/api/v1/webhook-endpoints', { token, body: keyedBody, headers });
    expect(keyed.status).toBe(200);
    const replay = await request(service.url, 'POST', '/api/v1/webhook-endpoints', { token, body: keyedBody, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(keyed.text);
    const [kept] = await service.sql<{ body: string }>(`select body from idempotency_key where key = 'endpoint-k1'`);
    expect(kept.body).toMatch(/^sealed-br:/);
    expect(kept.body).not.toContain(keyed.body.secret);
    await service.sql(`update idempotency_key set status = null, content_type = null, body = null where key = 'endpoint-k1'`);
    const rebuilt = await request(service.url, 'POST', '/api/v1/webhook-endpoints', { token, body: keyedBody, headers });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body).toEqual(keyed.body);
    const reused = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: { ...keyedBody, description: 'other' },
      headers,
    });
    expect(reused.status).toBe(422);
    expect(
      (await service.sql<{ n: number }>(`select count(*)::int as n from webhook_endpoint where organization_id = $1`, [own]))[0].n,
    ).toBe(2);

    const number = await createPolicy(own);
    await until(() => hooks.received.length === 1 || undefined, 'the delivery');
    const events = await request(service.url, 'GET', `/api/v1/events?organizationId=${own}&type=policy.created`, { token });
    expect(events.status, events.text).toBe(200);
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toMatchObject({ type: 'policy.created', organizationId: own, data: { object: { number } } });
    const event = await until(async () => {
      const response = await request(service.url, 'GET', `/api/v1/events/${events.body.data[0].id}`, { token });
      return response.body.deliveries?.[0]?.status === 'delivered' ? response : undefined;
    }, 'the delivered state');
    expect(event.body.deliveries).toEqual([
      expect.objectContaining({ endpointId: id, status: 'delivered', attempts: 1, lastStatus: 200, nextAttemptAt: null }),
    ]);
    expect(event.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const stranger = await service.token({ sub: 'hooks-stranger' });
    expect((await request(service.url, 'GET', `/api/v1/events/${events.body.data[0].id}`, { token: stranger })).status).toBe(404);
    expect((await request(service.url, 'DELETE', `/api/v1/webhook-endpoints/${id}`, { token: stranger })).status).toBe(404);
    const deleted = await request(service.url, 'DELETE', `/api/v1/webhook-endpoints/${id}`, { token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await request(service.url, 'GET', `/api/v1/webhook-endpoints/${id}`, { token })).status).toBe(404);
  });

  it('records no event for a create that fails, and keeps no secret in the events table', async () => {
    const own = await createOrganization({ legalName: 'Rollback Tree' });
    const number = await createPolicy(own);
    const count = async () => (await service.sql<{ n: string }>('select count(*) as n from event'))[0].n;
    const before = await count();
    const duplicate = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: own, number }) });
    expect(duplicate.status).toBe(409);
    expect(await count()).toBe(before);
    const rows = await service.sql<{ data: string }>('select data::text as data from event');
    for (const { data } of rows) {
      expect(data).not.toContain('000123456789');
      expect(data).not.toContain('123-45-6789');
      expect(data).not.toMatch(/"cvc"|"account"|"taxId":"\d{3}-/);
    }
  });
});
