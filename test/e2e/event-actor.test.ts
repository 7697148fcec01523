import { MikroORM } from '@mikro-orm/postgresql';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormSettings } from '../../src/database/orm-settings.js';
import { createLogger } from '../../src/logger.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';
import { eventually } from '../support/eventually.js';

/**
 * Events carry `actor` (the `sub` of the caller whose request made them) and `apiVersion`
 * (contract section 18, issue 25 item 6), on every surface: REST list and read, GraphQL, and the
 * webhook payload. The actors differ from request to request on purpose: an event's actor is who
 * made that change, not who created the object.
 */
const day = (offset: number) => new Date(Date.now() + offset * 864e5).toISOString().slice(0, 10);
/** The top-level fields of an event, in the order REST answers them and webhooks carry them. */
const EVENT_KEYS = ['id', 'type', 'apiVersion', 'createdAt', 'organizationId', 'actor', 'data'];

describe('event actor and apiVersion', () => {
  const service = useTestService({ RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0' });
  const received: Array<{ headers: Record<string, string>; body: string }> = [];
  let hooks: Server;
  let secret: string;
  let rootId: string;
  /** The actor each event type must carry (one event of each type is made below). */
  const expected: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    hooks = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.end();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    tokens.alice = await service.token({ sub: 'alice' });
    const root = await request(service.url, 'POST', '/api/v1/organization', {
      token: tokens.alice,
      body: organizationBody({ legalName: 'Actor Root' }),
    });
    expect(root.status, root.text).toBe(200);
    rootId = root.body.id;
    tokens.bob = await service.token({ sub: 'bob', org: rootId });
    tokens.carol = await service.token({ sub: 'carol', org: rootId });
    const endpoint = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token: tokens.alice,
      body: { url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`, organizationId: rootId },
    });
    expect(endpoint.status, endpoint.text).toBe(200);
    secret = endpoint.body.secret;

    // Made after the endpoint, so it is delivered too.
    const leaf = await request(service.url, 'POST', '/api/v1/organization', {
      token: tokens.alice,
      body: organizationBody({ legalName: 'Actor Leaf', parentId: rootId }),
    });
    expect(leaf.status, leaf.text).toBe(200);
    expected['organization.created'] = 'alice';
    const send = async (as: string, method: string, path: string, body: object, headers: Record<string, string> = {}) => {
      const answer = await request(service.url, method, path, { token: tokens[as], body, headers });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(200);
      return answer.body;
    };
    await send(
      'bob',
      'PATCH',
      `/api/v1/organization/${leaf.body.id}`,
      { email: 'ops@actor.example' },
      { 'content-type': 'application/merge-patch+json' },
    );
    expected['organization.updated'] = 'bob';
    const policy = await send(
      'bob',
      'POST',
      '/api/v1/policy',
      policyBody({
        organizationId: leaf.body.id,
        effectiveDate: day(-335),
        expirationDate: day(30),
        coverageSlug: 'accident-illness-plus',
      }),
    );
    expected['policy.created'] = 'bob';
    await send('carol', 'POST', '/api/v1/quote', { ...policyBody({ organizationId: rootId }), cvc: undefined });
    expected['quote.created'] = 'carol';
    await send('carol', 'POST', `/api/v1/policy/${policy.number}/changes`, { effectiveDate: day(0), ownerLastname: 'Diaz-Ortiz' });
    expected['policy.changed'] = 'carol';
    await send('bob', 'POST', `/api/v1/policy/${policy.number}/cancellation`, { effectiveDate: day(10), reason: 'insured_request' });
    expected['policy.cancelled'] = 'bob';
    await send('carol', 'POST', `/api/v1/policy/${policy.number}/reinstatement`, {});
    expected['policy.reinstated'] = 'carol';
    await send('alice', 'POST', `/api/v1/policy/${policy.number}/renewal`, {});
    expected['policy.renewed'] = 'alice';
  });
  afterAll(() => new Promise((resolve) => hooks?.close(resolve)));

  it('on REST: every event type, listed and read, has actor { sub } and apiVersion v1, in the top-level order webhooks carry', async () => {
    const listed = await request(service.url, 'GET', `/api/v1/events?organizationId=${rootId}&limit=100`, { token: tokens.alice });
    expect(listed.status, listed.text).toBe(200);
    const events = listed.body.data as Array<Record<string, any>>;
    // The root's own organization.created came before the endpoint and is listed too (alice's).
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(Object.keys(expected)));
    for (const event of events) {
      expect(Object.keys(event).filter((key) => key !== 'deliveries')).toEqual(EVENT_KEYS);
      expect(event, event.type).toMatchObject({ apiVersion: 'v1', actor: { sub: expected[event.type] } });
      const read = await request(service.url, 'GET', `/api/v1/events/${event.id}`, { token: tokens.bob });
      expect(read.status).toBe(200);
      expect(Object.keys(read.body)).toEqual([...EVENT_KEYS, 'deliveries']);
      expect(read.body).toMatchObject({ apiVersion: 'v1', actor: { sub: expected[event.type] } });
    }
  });

  it('on GraphQL: Event.actor and Event.apiVersion, on the list and by id', async () => {
    const answer = await graphql(
      service.url,
      `query ($id: ID!) { organization(id: $id) { events(first: 20) { edges { node { id type apiVersion actor { sub } } } } } }`,
      { id: rootId },
      tokens.carol,
    );
    expect(answer.body.errors, answer.text).toBeUndefined();
    const nodes = answer.body.data.organization.events.edges.map((edge: { node: unknown }) => edge.node) as Array<{
      id: string;
      type: string;
      apiVersion: string;
      actor: { sub: string };
    }>;
    expect(nodes.length).toBe(9);
    for (const node of nodes) expect(node, node.type).toMatchObject({ apiVersion: 'v1', actor: { sub: expected[node.type] } });
    const one = await graphql(
      service.url,
      `query ($id: ID!) { event(id: $id) { apiVersion actor { sub } } }`,
      { id: nodes[1].id },
      tokens.carol,
    );
    expect(one.body.data.event).toEqual({ apiVersion: 'v1', actor: { sub: expected[nodes[1].type] } });
  });

  it('in webhook payloads: every event type carries actor and apiVersion at the top level, verified with standardwebhooks', async () => {
    await eventually(() => (received.length >= 8 ? true : undefined), 'eight deliveries');
    const verifier = new Webhook(secret);
    const payloads = received.map(({ headers, body }) => verifier.verify(body, headers) as Record<string, any>);
    expect(payloads.map((payload) => payload.type).sort()).toEqual(Object.keys(expected).sort());
    for (const payload of payloads) {
      expect(Object.keys(payload), payload.type).toEqual(EVENT_KEYS);
      expect(payload, payload.type).toMatchObject({ apiVersion: 'v1', actor: { sub: expected[payload.type] } });
    }
  });

  it("lists each event with its deliveries' latest state (only endpoints the caller may read), read in one statement per page", async () => {
    await eventually(() => (received.length >= 8 ? true : undefined), 'eight deliveries');
    const [endpoint] = await service.sql<{ id: string }>('select id from webhook_endpoint');
    const statements: string[] = [];
    const listen = ({ text }: { text: string }) => void statements.push(text);
    let stop = service.database.onStatement(listen);
    let listed;
    try {
      listed = await eventually(async () => {
        const page = await request(service.url, 'GET', `/api/v1/events?organizationId=${rootId}&limit=100`, { token: tokens.alice });
        const delivered = page.body.data.filter(
          (event: { deliveries: Array<{ status: string }> }) => event.deliveries[0]?.status === 'delivered',
        );
        return delivered.length === 8 ? page : undefined;
      }, 'eight events listed as delivered');
    } finally {
      stop();
    }
    const events = listed.body.data as Array<{ id: string; type: string; organizationId: string; deliveries: unknown[] }>;
    for (const event of events) {
      // The same state as the event's own read shows (the root's creation preceded the endpoint: none).
      const read = await request(service.url, 'GET', `/api/v1/events/${event.id}`, { token: tokens.alice });
      expect(event.deliveries, event.type).toEqual(read.body.deliveries);
      if (event.type !== 'organization.created' || event.deliveries.length > 0) {
        expect(event.deliveries).toEqual([
          expect.objectContaining({ endpointId: endpoint.id, status: 'delivered', attempts: 1, lastStatus: 200 }),
        ]);
      }
    }
    // The last page read (9 events) asked for the deliveries of all of them at once. (The webhook
    // worker's statements pass through the same gateway: they read deliveries by id, not by event.)
    const byEvent = (sql: string) => /from webhook_delivery .* where d\.event_id = any/s.test(sql);
    const lastPage = statements.slice(statements.findLastIndex((sql) => /from event_ancestor a join event/.test(sql)));
    expect(lastPage.filter(byEvent)).toHaveLength(1);

    // A caller who may read the leaf, not the root, sees the leaf's events without the root's endpoint's deliveries.
    const leafId = events.find((event) => event.type === 'organization.updated')!.organizationId;
    const dave = await service.token({ sub: 'dave', org: leafId });
    const own = await request(service.url, 'GET', '/api/v1/events?limit=100', { token: dave });
    expect(own.status, own.text).toBe(200);
    expect(own.body.data.length).toBeGreaterThan(0);
    for (const event of own.body.data) expect(event.deliveries).toEqual([]);

    // GraphQL lists them too, in one statement per page.
    statements.length = 0;
    stop = service.database.onStatement(listen);
    try {
      const answer = await graphql(
        service.url,
        `query ($id: ID!) { organization(id: $id) { events(first: 20) { edges { node { type deliveries { endpointId status } } } } } }`,
        { id: rootId },
        tokens.alice,
      );
      expect(answer.body.errors, answer.text).toBeUndefined();
      const nodes = answer.body.data.organization.events.edges.map((edge: { node: { deliveries: unknown[] } }) => edge.node);
      expect(nodes.filter((node: { deliveries: unknown[] }) => node.deliveries.length === 1)).toHaveLength(8);
    } finally {
      stop();
    }
    expect(statements.filter(byEvent)).toHaveLength(1);

    // Bounded: each event's deliveries are charged as their maximum (25), so a page of 100 with them is over the query cost limit.
    const costly = await graphql(
      service.url,
      `query ($id: ID!) { organization(id: $id) { events(first: 100) { edges { node { id deliveries { status } } } } } }`,
      { id: rootId },
      tokens.alice,
    );
    expect(costly.body.errors?.[0]?.message, costly.text).toMatch(/cost limit/);
  });

  it('stores the actor with the event (event.actor_sub), written by the request', async () => {
    const rows = await service.sql<{ type: string; actor_sub: string }>('select type, actor_sub from event');
    expect(rows).toHaveLength(9);
    for (const row of rows) expect(row.actor_sub, row.type).toBe(expected[row.type]);
  });

  it('the migration gives events written before it the actor the database knows, else null', async () => {
    // Back to the schema before the column, then up again: the migration's backfill runs over these events.
    const orm = await MikroORM.init({
      ...ormSettings(service.databaseUrl, createLogger('silent')),
      entities: [],
      discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
    });
    try {
      await orm.getMigrator().down({ to: 'Migration20261128200000_life_renew_renewal_of' });
      expect(
        await service.sql(`select 1 from information_schema.columns where table_name = 'event' and column_name = 'actor_sub'`),
      ).toEqual([]);
      await orm.getMigrator().up();
    } finally {
      await orm.close();
    }
    const rows = await service.sql<{ type: string; actor_sub: string | null }>('select type, actor_sub from event');
    expect(rows).toHaveLength(9);
    for (const row of rows) {
      // Nothing recorded who changed an organization: that one is unknown.
      expect(row.actor_sub, row.type).toBe(row.type === 'organization.updated' ? null : expected[row.type]);
    }
    // And such an event reads with `actor: null`, on REST and in its payload's shape.
    const listed = await request(service.url, 'GET', `/api/v1/events?organizationId=${rootId}&type=organization.updated`, {
      token: tokens.alice,
    });
    expect(listed.body.data).toEqual([expect.objectContaining({ type: 'organization.updated', apiVersion: 'v1', actor: null })]);
  });
});
