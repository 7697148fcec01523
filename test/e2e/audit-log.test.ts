import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { servicePrincipal } from '../../src/auth/principal.js';
import { loadConfig } from '../../src/config.js';
import { Deadline } from '../../src/limits/deadline.js';
import { lapsePolicy } from '../../src/policies/cancel-policy.js';
import { declaredWrites } from '../../src/graphql/write.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { addMonthsClamped } from '../../src/values/calendar-date.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request, type TestResponse } from '../support/http.js';
import { day } from '../support/policy-lifecycle.js';
import { createRootOrganization, startTestService, useTestService } from '../support/test-service.js';

/**
 * Contract section 21, the audit log, on a real service and PostgreSQL: one entry per successful
 * write (every declared mutation and every REST write route, from their declarations), none for a
 * replay or a refusal, never another tree's, the chain sealed within seconds and its verification
 * naming the first entry a hand-made change breaks. The export's memory and retention run on
 * services of their own (no sealer racing the seeded rows).
 */

const USER_AGENT = 'audit-test/1.0';

interface EntryRow {
  id: string;
  seq: string;
  action: string;
  actor_sub: string;
  api_key_id: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  organization_id: string;
  targets: Array<{ type: string; id: string }>;
  changes: Record<string, { from: unknown; to: unknown }> | null;
}

describe('the audit log', () => {
  const service = useTestService({ AUDIT_SEAL_SECONDS: '1', WEBHOOK_DELIVERY: 'false' });
  let token: string;
  let organizationId: string;
  let requestNumber = 0;

  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, as = token) =>
    request(service.url, method, path, {
      token: as,
      body,
      headers: { 'user-agent': USER_AGENT, 'x-request-id': `audit-${++requestNumber}`, ...headers },
    });
  const gql = (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    send('POST', '/graphql', { query, variables }, headers);
  const ok = (response: TestResponse) => {
    expect(response.status, response.text).toBeLessThan(300);
    if (response.body?.errors) expect(response.body.errors, response.text).toBeUndefined();
    return response;
  };
  const lastSeq = async () => (await service.sql<{ seq: string }>('select coalesce(max(seq), 0)::text as seq from audit_entry'))[0].seq;
  const entriesAfter = (seq: string) =>
    service.sql<EntryRow>('select *, seq::text as seq from audit_entry a where a.seq > $1 order by a.seq', [seq]);

  // What the writes need, made afresh for each (their own entries are before the write measured).
  const policy = async (overrides: Record<string, unknown> = {}) => {
    const effectiveDate = (overrides.effectiveDate as string | undefined) ?? '2026-01-01';
    const created = ok(
      await send(
        'POST',
        '/api/v1/policy',
        policyBody({ effectiveDate, expirationDate: addMonthsClamped(effectiveDate, 12), ...overrides }),
      ),
    );
    return created.body as { id: string; number: number };
  };
  const cancelled = async () => {
    const { number } = await policy();
    ok(await send('POST', `/api/v1/policy/${number}/cancellation`, { effectiveDate: day(0), reason: 'underwriting' }));
    return number;
  };
  const paidAhead = async () => {
    const { number } = await policy();
    ok(await send('POST', `/api/v1/policy/${number}/payments`, { amount: 100_000, reference: 'ahead' }));
    return number;
  };
  const endingSoon = () => policy({ effectiveDate: addMonthsClamped(day(10), -12) });
  const quote = async () =>
    ok(await send('POST', '/api/v1/quote', policyBody({ effectiveDate: day(1), expirationDate: addMonthsClamped(day(1), 12) }))).body as {
      id: string;
    };
  const endpoint = async () =>
    ok(await send('POST', '/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' })).body as { id: string };
  const anEvent = async () => (ok(await send('GET', '/api/v1/events?limit=1')).body.data[0] as { id: string }).id;
  const apiKey = async () =>
    ok(await send('POST', '/api/v1/api-keys', { name: 'audited', scopes: ['policies:read'] })).body as { id: string };

  type Run = () => Promise<TestResponse>;
  interface Row {
    action: string;
    /** Makes what the write needs, and answers the write itself. */
    prepare: () => Promise<Run>;
  }

  /** Each declared mutation (graphql/write.ts), as a request on `/graphql`: a mutation without a row fails the first test. */
  const GRAPHQL_WRITES: Record<string, Row> = {
    createOrganization: {
      action: 'organization.create',
      prepare: async () => () =>
        gql('mutation ($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }', { input: organizationBody() }),
    },
    updateOrganization: {
      action: 'organization.update',
      prepare: async () => () =>
        gql('mutation ($id: ID!, $input: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $input) { id } }', {
          id: organizationId,
          input: { description: `described ${requestNumber}` },
        }),
    },
    createPolicy: {
      action: 'policy.create',
      prepare: async () => () =>
        gql('mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) { number } }', {
          input: policyBody({ effectiveDate: day(1), expirationDate: addMonthsClamped(day(1), 12) }),
        }),
    },
    createQuote: {
      action: 'quote.create',
      prepare: async () => () =>
        gql('mutation ($input: CreateQuoteInput!) { createQuote(input: $input) { id } }', {
          input: policyBody({ effectiveDate: day(1), expirationDate: addMonthsClamped(day(1), 12) }),
        }),
    },
    changePolicy: {
      action: 'policy.change',
      prepare: async () => {
        const { number } = await policy();
        return () =>
          gql('mutation ($number: SafeInt!, $input: ChangePolicyInput!) { changePolicy(number: $number, input: $input) { number } }', {
            number,
            input: { effectiveDate: day(5), petName: 'Changed' },
          });
      },
    },
    cancelPolicy: {
      action: 'policy.cancel',
      prepare: async () => {
        const { number } = await policy();
        return () =>
          gql('mutation ($number: SafeInt!, $input: CancelPolicyInput!) { cancelPolicy(number: $number, input: $input) { number } }', {
            number,
            input: { effectiveDate: day(0), reason: 'underwriting' },
          });
      },
    },
    reinstatePolicy: {
      action: 'policy.reinstate',
      prepare: async () => {
        const number = await cancelled();
        return () => gql('mutation ($number: SafeInt!) { reinstatePolicy(number: $number, input: {}) { number } }', { number });
      },
    },
    renewPolicy: {
      action: 'policy.renew',
      prepare: async () => {
        const { number } = await endingSoon();
        return () => gql('mutation ($number: SafeInt!) { renewPolicy(number: $number, input: {}) { number } }', { number });
      },
    },
    recordPayment: {
      action: 'payment.create',
      prepare: async () => {
        const { number } = await policy();
        return () =>
          gql('mutation ($number: SafeInt!) { recordPayment(number: $number, input: { amount: 1000, reference: "p1" }) { number } }', {
            number,
          });
      },
    },
    recordRefund: {
      action: 'refund.create',
      prepare: async () => {
        const number = await paidAhead();
        return () =>
          gql('mutation ($number: SafeInt!) { recordRefund(number: $number, input: { amount: 100, reference: "r1" }) { number } }', {
            number,
          });
      },
    },
    createWebhookEndpoint: {
      action: 'webhook_endpoint.create',
      prepare: async () => () =>
        gql('mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id } }', {
          input: { url: 'http://127.0.0.1:9/hooks' },
        }),
    },
    updateWebhookEndpoint: {
      action: 'webhook_endpoint.update',
      prepare: async () => {
        const { id } = await endpoint();
        return () =>
          gql('mutation ($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { id } }', {
            id,
            input: { description: 'changed' },
          });
      },
    },
    deleteWebhookEndpoint: {
      action: 'webhook_endpoint.delete',
      prepare: async () => {
        const { id } = await endpoint();
        return () => gql('mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) }', { id });
      },
    },
    rotateWebhookEndpointSecret: {
      action: 'webhook_endpoint.rotate_secret',
      prepare: async () => {
        const { id } = await endpoint();
        return () => gql('mutation ($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret } }', { id });
      },
    },
    sendTestWebhook: {
      action: 'webhook_endpoint.test',
      prepare: async () => {
        const { id } = await endpoint();
        return () => gql('mutation ($id: ID!) { sendTestWebhook(id: $id) { eventId } }', { id });
      },
    },
    redeliverEvent: {
      action: 'event.redeliver',
      prepare: async () => {
        const [{ id: endpointId }, id] = [await endpoint(), await anEvent()];
        return () =>
          gql('mutation ($id: ID!, $endpointId: ID!) { redeliverEvent(id: $id, endpointId: $endpointId) { id } }', { id, endpointId });
      },
    },
    recoverWebhookEndpoint: {
      action: 'webhook_endpoint.recover',
      prepare: async () => {
        const { id } = await endpoint();
        return () =>
          gql('mutation ($id: ID!, $since: String!) { recoverWebhookEndpoint(id: $id, input: { since: $since }) { queued } }', {
            id,
            since: new Date(Date.now() - 60_000).toISOString(),
          });
      },
    },
    createApiKey: {
      action: 'api_key.create',
      prepare: async () => () => gql('mutation { createApiKey(input: { name: "audited", scopes: ["policies:read"] }) { id } }'),
    },
    rotateApiKey: {
      action: 'api_key.rotate',
      prepare: async () => {
        const { id } = await apiKey();
        return () => gql('mutation ($id: ID!) { rotateApiKey(id: $id, input: { graceSeconds: 60 }) { id } }', { id });
      },
    },
    revokeApiKey: {
      action: 'api_key.revoke',
      prepare: async () => {
        const { id } = await apiKey();
        return () => gql('mutation ($id: ID!) { revokeApiKey(id: $id) }', { id });
      },
    },
  };

  /** Each REST write route (every method but GET of REST_ROUTES): a route without a row fails the first test. */
  const REST_WRITES: Record<string, Row> = {
    'POST /api/v1/organization': {
      action: 'organization.create',
      prepare: async () => () => send('POST', '/api/v1/organization', organizationBody()),
    },
    'PATCH /api/v1/organization/:id': {
      action: 'organization.update',
      prepare: async () => () => send('PATCH', `/api/v1/organization/${organizationId}`, { description: `patched ${requestNumber}` }),
    },
    'POST /api/v1/policy': {
      action: 'policy.create',
      prepare: async () => {
        const { id } = await quote();
        return () => send('POST', '/api/v1/policy', { quoteId: id });
      },
    },
    'POST /api/v1/quote': {
      action: 'quote.create',
      prepare: async () => () =>
        send('POST', '/api/v1/quote', policyBody({ effectiveDate: day(1), expirationDate: addMonthsClamped(day(1), 12) })),
    },
    'POST /api/v1/policy/:id/changes': {
      action: 'policy.change',
      prepare: async () => {
        const { number } = await policy();
        return () => send('POST', `/api/v1/policy/${number}/changes`, { effectiveDate: day(5), petName: 'Changed' });
      },
    },
    'POST /api/v1/policy/:id/cancellation': {
      action: 'policy.cancel',
      prepare: async () => {
        const { number } = await policy();
        return () => send('POST', `/api/v1/policy/${number}/cancellation`, { effectiveDate: day(0), reason: 'underwriting' });
      },
    },
    'POST /api/v1/policy/:id/reinstatement': {
      action: 'policy.reinstate',
      prepare: async () => {
        const number = await cancelled();
        return () => send('POST', `/api/v1/policy/${number}/reinstatement`, {});
      },
    },
    'POST /api/v1/policy/:id/renewal': {
      action: 'policy.renew',
      prepare: async () => {
        const { number } = await endingSoon();
        return () => send('POST', `/api/v1/policy/${number}/renewal`, {});
      },
    },
    'POST /api/v1/policy/:id/payments': {
      action: 'payment.create',
      prepare: async () => {
        const { number } = await policy();
        return () => send('POST', `/api/v1/policy/${number}/payments`, { amount: 1000, reference: 'p1' });
      },
    },
    'POST /api/v1/policy/:id/refunds': {
      action: 'refund.create',
      prepare: async () => {
        const number = await paidAhead();
        return () => send('POST', `/api/v1/policy/${number}/refunds`, { amount: 100, reference: 'r1' });
      },
    },
    'POST /api/v1/webhook-endpoints': {
      action: 'webhook_endpoint.create',
      prepare: async () => () => send('POST', '/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' }),
    },
    'PATCH /api/v1/webhook-endpoints/:id': {
      action: 'webhook_endpoint.update',
      prepare: async () => {
        const { id } = await endpoint();
        return () => send('PATCH', `/api/v1/webhook-endpoints/${id}`, { description: 'changed' });
      },
    },
    'DELETE /api/v1/webhook-endpoints/:id': {
      action: 'webhook_endpoint.delete',
      prepare: async () => {
        const { id } = await endpoint();
        return () => send('DELETE', `/api/v1/webhook-endpoints/${id}`);
      },
    },
    'POST /api/v1/webhook-endpoints/:id/secret-rotation': {
      action: 'webhook_endpoint.rotate_secret',
      prepare: async () => {
        const { id } = await endpoint();
        return () => send('POST', `/api/v1/webhook-endpoints/${id}/secret-rotation`, { graceSeconds: 60 });
      },
    },
    'POST /api/v1/webhook-endpoints/:id/test': {
      action: 'webhook_endpoint.test',
      prepare: async () => {
        const { id } = await endpoint();
        return () => send('POST', `/api/v1/webhook-endpoints/${id}/test`, {});
      },
    },
    'POST /api/v1/events/:id/redeliveries': {
      action: 'event.redeliver',
      prepare: async () => {
        const [{ id: endpointId }, id] = [await endpoint(), await anEvent()];
        return () => send('POST', `/api/v1/events/${id}/redeliveries`, { endpointId });
      },
    },
    'POST /api/v1/webhook-endpoints/:id/recovery': {
      action: 'webhook_endpoint.recover',
      prepare: async () => {
        const { id } = await endpoint();
        return () => send('POST', `/api/v1/webhook-endpoints/${id}/recovery`, { since: new Date(Date.now() - 60_000).toISOString() });
      },
    },
    'POST /api/v1/api-keys': {
      action: 'api_key.create',
      prepare: async () => () => send('POST', '/api/v1/api-keys', { name: 'audited', scopes: ['policies:read'] }),
    },
    'POST /api/v1/api-keys/:id/rotation': {
      action: 'api_key.rotate',
      prepare: async () => {
        const { id } = await apiKey();
        return () => send('POST', `/api/v1/api-keys/${id}/rotation`, { graceSeconds: 60 });
      },
    },
    'DELETE /api/v1/api-keys/:id': {
      action: 'api_key.revoke',
      prepare: async () => {
        const { id } = await apiKey();
        return () => send('DELETE', `/api/v1/api-keys/${id}`);
      },
    },
  };

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  it('has a row for every declared mutation and every REST write route', async () => {
    const schema = await buildServiceSchema();
    expect(Object.keys(GRAPHQL_WRITES).sort()).toEqual([...declaredWrites(schema).keys()].sort());
    const restWrites = REST_ROUTES.filter((route) => route.method !== 'GET').map((route) => `${route.method} ${route.path}`);
    expect(Object.keys(REST_WRITES).sort()).toEqual(restWrites.sort());
  });

  const rows = [
    ...Object.entries(GRAPHQL_WRITES).map(([name, row]) => [`mutation ${name}`, row] as const),
    ...Object.entries(REST_WRITES).map(([name, row]) => [name, row] as const),
  ];
  it.each(rows)('%s appends exactly one entry, with its action and actor', async (_name, row) => {
    const run = await row.prepare();
    const before = await lastSeq();
    const response = ok(await run());
    const written = await entriesAfter(before);
    expect(written.map((entry) => entry.action)).toEqual([row.action]);
    const [entry] = written;
    expect(entry).toMatchObject({
      actor_sub: 'alice',
      api_key_id: null,
      user_agent: USER_AGENT,
      request_id: response.headers.get('x-request-id'),
      organization_id: expect.any(String),
    });
    expect(entry.ip).toMatch(/127\.0\.0\.1|::1/);
    expect(entry.targets.length).toBeGreaterThan(0);
    if (row.action.endsWith('.create')) {
      expect(entry.changes).toEqual(row.action === 'payment.create' || row.action === 'refund.create' ? expect.any(Object) : null);
    }
    if (row.action === 'organization.update') expect(Object.keys(entry.changes ?? {})).toEqual(['description']);
    if (row.action === 'webhook_endpoint.update') expect(entry.changes).toEqual({ description: { from: null, to: 'changed' } });
  });

  it("names the API key that wrote: actor apiKeyId and sub apikey:<id>, and a rotation's change to the old key's expiry", async () => {
    const made = ok(await send('POST', '/api/v1/api-keys', { name: 'writer', scopes: ['policies:write'] })).body as {
      id: string;
      key: string;
    };
    const before = await lastSeq();
    const created = await send(
      'POST',
      '/api/v1/quote',
      policyBody({ effectiveDate: day(1), expirationDate: addMonthsClamped(day(1), 12) }),
      {},
      made.key,
    );
    ok(created);
    const [entry] = await entriesAfter(before);
    expect(entry).toMatchObject({ action: 'quote.create', actor_sub: `apikey:${made.id}`, api_key_id: made.id });
    const listed = ok(await send('GET', `/api/v1/audit-log?actorSub=apikey:${made.id}`)).body.data;
    expect(listed.map((each: { action: string; actor: object }) => [each.action, each.actor])).toEqual([
      ['quote.create', { sub: `apikey:${made.id}`, apiKeyId: made.id, ip: expect.any(String), userAgent: USER_AGENT }],
    ]);
    const afterQuote = await lastSeq();
    const rotated = ok(await send('POST', `/api/v1/api-keys/${made.id}/rotation`, { graceSeconds: 0 })).body as { id: string };
    const [rotation] = await entriesAfter(afterQuote);
    expect(rotation.targets).toEqual([
      { type: 'api_key', id: rotated.id },
      { type: 'api_key', id: made.id },
    ]);
    expect(Object.keys(rotation.changes ?? {})).toEqual(['expiresAt']);
    // The key never appears in its entries.
    expect(JSON.stringify(await entriesAfter(before))).not.toContain(made.key.slice(16));
  });

  it('a replayed idempotent request and a refused one append nothing', async () => {
    const body = policyBody({ effectiveDate: day(1), expirationDate: addMonthsClamped(day(1), 12) });
    const before = await lastSeq();
    ok(await send('POST', '/api/v1/quote', body, { 'idempotency-key': 'audit-replay-1' }));
    const replayed = ok(await send('POST', '/api/v1/quote', body, { 'idempotency-key': 'audit-replay-1' }));
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect((await entriesAfter(before)).map((entry) => entry.action)).toEqual(['quote.create']);

    const { number } = await policy();
    const afterPolicy = await lastSeq();
    expect(
      (await send('POST', `/api/v1/policy/${number}/cancellation`, { effectiveDate: '2030-01-01', reason: 'underwriting' })).status,
    ).toBe(409);
    expect((await send('PATCH', `/api/v1/organization/${organizationId}`, { legalName: null })).status).toBe(400);
    const stranger = await service.token({ sub: 'mallory' });
    expect((await send('POST', `/api/v1/policy/${number}/payments`, { amount: 100, reference: 'x' }, {}, stranger)).status).toBe(404);
    expect((await send('DELETE', `/api/v1/webhook-endpoints/${crypto.randomUUID()}`)).status).toBe(404);
    expect(await entriesAfter(afterPolicy)).toEqual([]);
  });

  it('a lapse by the service itself is a policy.cancel by system, with no request', async () => {
    // As the billing sweep posts it (billing-sweep.ts): the service's principal, no origin.
    const { number, id } = await policy({ effectiveDate: '2026-01-01' });
    const before = await lastSeq();
    const rules = { ...loadConfig(service.env).policyRules, billingLapseDays: 30 };
    const scope = { db: service.database, principal: servicePrincipal(organizationId), origin: null, deadline: new Deadline(10), rules };
    await lapsePolicy(scope, number);
    const [entry, ...more] = await entriesAfter(before);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ action: 'policy.cancel', actor_sub: 'system', ip: null, user_agent: null, request_id: null });
    expect(entry.targets[0]).toEqual({ type: 'policy', id });
  });

  it("never shows another tree's entries, on GraphQL and REST, listed, exported or verified", async () => {
    const bob = await service.token({ sub: 'bob' });
    const bobsRoot = ok(await send('POST', '/api/v1/organization', organizationBody(), {}, bob)).body.id as string;
    const bobAtRoot = await service.token({ sub: 'bob', org: bobsRoot });
    ok(
      await send(
        'POST',
        '/api/v1/quote',
        policyBody({ effectiveDate: day(1), expirationDate: addMonthsClamped(day(1), 12) }),
        {},
        bobAtRoot,
      ),
    );

    for (const path of ['/api/v1/audit-log', '/api/v1/audit-log/export', '/api/v1/audit-log/verify']) {
      expect((await send('GET', `${path}?organizationId=${bobsRoot}`)).status, path).toBe(404);
      expect((await send('GET', `${path}?organizationId=${organizationId}`, undefined, {}, bobAtRoot)).status, path).toBe(404);
    }
    const viaGraphql = await gql('query ($id: ID) { auditLog(organizationId: $id, first: 5) { edges { node { id } } } }', { id: bobsRoot });
    expect(viaGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');

    // Alice's own log: her tree's entries only, newest first, by GraphQL and REST alike.
    const listed = ok(await send('GET', '/api/v1/audit-log?limit=100'));
    expect(listed.body.data.length).toBeGreaterThan(20);
    const bobsIds = (await service.sql<{ id: string }>('select id from audit_entry where root_id = $1', [bobsRoot])).map((row) => row.id);
    expect(bobsIds.length).toBe(2);
    for (const entry of listed.body.data) expect(bobsIds).not.toContain(entry.id);
    const graphqlPage = ok(
      await gql(
        'query ($id: ID!) { organization(id: $id) { auditLog(first: 100) { edges { node { id action actor { sub ip userAgent } } } } } }',
        {
          id: organizationId,
        },
      ),
    );
    expect(graphqlPage.body.data.organization.auditLog.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual(
      listed.body.data.map((entry: { id: string }) => entry.id),
    );
    const exported = await send('GET', '/api/v1/audit-log/export');
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; organizationId: string });
    for (const line of lines) expect(bobsIds).not.toContain(line.id);
    expect(new Set(lines.map((line) => line.id))).toEqual(new Set(await treeIds(organizationId)));

    // A child's caller sees its subtree alone, and not the root's log.
    const child = ok(await send('POST', '/api/v1/organization', organizationBody({ parentId: organizationId }))).body.id as string;
    const carol = await service.token({ sub: 'carol', org: child });
    const childLog = ok(await send('GET', '/api/v1/audit-log', undefined, {}, carol));
    expect(childLog.body.data.map((entry: { organizationId: string }) => entry.organizationId)).toEqual([child]);
    expect((await send('GET', `/api/v1/audit-log?organizationId=${organizationId}`, undefined, {}, carol)).status).toBe(404);
  });

  const treeIds = async (root: string) =>
    (await service.sql<{ id: string }>('select id from audit_entry where root_id = $1', [root])).map((row) => row.id);

  it('filters by action, actor and time, and pages newest first', async () => {
    const cancels = ok(await send('GET', '/api/v1/audit-log?action=policy.cancel,policy.reinstate&actorSub=alice&limit=2'));
    expect(cancels.body.data).toHaveLength(2);
    expect(cancels.body.hasMore).toBe(true);
    for (const entry of cancels.body.data) expect(['policy.cancel', 'policy.reinstate']).toContain(entry.action);
    const next = ok(
      await send('GET', `/api/v1/audit-log?action=policy.cancel,policy.reinstate&actorSub=alice&limit=2&after=${cancels.body.nextCursor}`),
    );
    expect(next.body.data[0].id).not.toBe(cancels.body.data[1].id);
    const [first] = cancels.body.data;
    expect(first).toEqual({
      id: expect.any(String),
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      action: expect.any(String),
      actor: { sub: 'alice', apiKeyId: null, ip: expect.any(String), userAgent: USER_AGENT },
      targets: [
        { type: 'policy', id: expect.any(String) },
        { type: 'transaction', id: expect.any(String) },
      ],
      organizationId,
      requestId: expect.stringMatching(/^audit-/),
      changes: expect.any(Object),
      hash: expect.toBeOneOf([null, expect.stringMatching(/^[0-9a-f]{64}$/)]),
    });
    const byBob = ok(await send('GET', '/api/v1/audit-log?actorSub=bob'));
    expect(byBob.body.data).toEqual([]);
    const future = ok(await send('GET', `/api/v1/audit-log?since=${encodeURIComponent('2099-01-01T00:00:00Z')}`));
    expect(future.body.data).toEqual([]);
    const past = ok(await send('GET', `/api/v1/audit-log?until=${encodeURIComponent('2000-01-01T00:00:00Z')}`));
    expect(past.body.data).toEqual([]);
    expect((await send('GET', '/api/v1/audit-log?since=yesterday')).status).toBe(400);
    expect((await send('GET', '/api/v1/audit-log?action=policy.explode')).status).toBe(400);
    // AUDIT_READS is off by default: the reads of this file wrote no read entry.
    ok(await send('GET', '/api/v1/policy?limit=5'));
    expect(await service.sql("select id from audit_entry where action like '%.read'")).toEqual([]);
  });

  it('seals each entry within 10 s, chained per tree', async () => {
    const started = Date.now();
    const before = await lastSeq();
    ok(await send('POST', '/api/v1/quote', policyBody({ effectiveDate: day(1), expirationDate: addMonthsClamped(day(1), 12) })));
    const [entry] = await entriesAfter(before);
    for (;;) {
      const [row] = await service.sql<{ hash: string | null }>('select hash from audit_entry where id = $1', [entry.id]);
      if (row.hash) break;
      expect(Date.now() - started).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const chain = await service.sql<{ position: string }>(
      'select position::text as position from audit_entry a where a.root_id = $1 and a.position is not null order by a.position',
      [organizationId],
    );
    expect(chain.map((row) => Number(row.position))).toEqual(chain.map((_row, index) => index + 1));
  });

  it('never chains past an entry whose transaction is still open', async () => {
    const insert = `insert into audit_entry (id, action, actor_sub, targets, organization_id, path)
      values (gen_random_uuid(), 'organization.read', $2, '[]', $1, array[$1::uuid]) returning id`;
    const open = new pg.Client({ connectionString: service.databaseUrl });
    await open.connect();
    try {
      await open.query('begin');
      const [first] = (await open.query<{ id: string }>(insert, [organizationId, 'open-transaction'])).rows;
      // Written after it, committed at once: its xid is above the open one's, so it waits too.
      const [second] = await service.sql<{ id: string }>(insert, [organizationId, 'committed-after']);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const [row] = await service.sql<{ hash: string | null }>('select hash from audit_entry where id = $1', [second.id]);
      expect(row.hash).toBeNull();
      await open.query('commit');
      const sealed = async () =>
        service.sql<{ id: string; position: string | null }>(
          'select id, position::text as position from audit_entry where id in ($1, $2) order by seq',
          [first.id, second.id],
        );
      for (let i = 0; i < 100 && (await sealed()).some((entry) => entry.position === null); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Chained in insertion order once both transactions ended: the open one's first.
      const [a, b] = await sealed();
      expect([a.id, b.id]).toEqual([first.id, second.id]);
      expect(Number(b.position)).toBe(Number(a.position) + 1);
    } finally {
      await open.end();
    }
  });

  describe('verification', () => {
    const allSealed = async () => {
      for (let i = 0; i < 100; i++) {
        const [{ n }] = await service.sql<{ n: number }>('select count(*)::int as n from audit_entry where hash is null');
        if (n === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('entries left unsealed');
    };
    const verify = async () => ok(await send('GET', `/api/v1/audit-log/verify?organizationId=${organizationId}`)).body;
    /** As a superuser with the table's trigger off, as a tamperer with database access would. */
    const byHand = async (sql: string, values: unknown[]) => {
      await service.sql('alter table audit_entry disable trigger audit_entry_append_only');
      try {
        await service.sql(sql, values);
      } finally {
        await service.sql('alter table audit_entry enable trigger audit_entry_append_only');
      }
    };
    const chain = async () =>
      service.sql<{ id: string; position: string; action: string }>(
        'select id, position::text as position, action from audit_entry a where a.root_id = $1 and a.position is not null order by a.position',
        [organizationId],
      );

    beforeAll(allSealed);

    it('answers ok for the untouched chain, on REST and GraphQL', async () => {
      const entries = await chain();
      expect(await verify()).toEqual({ ok: true, checked: entries.length, firstBrokenId: null });
      const viaGraphql = ok(await gql('{ auditLogVerification { ok checked firstBrokenId } }'));
      expect(viaGraphql.body.data.auditLogVerification).toEqual({ ok: true, checked: entries.length, firstBrokenId: null });
    });

    it('refuses a change or a delete from the service, or anyone with the trigger on', async () => {
      const [entry] = await chain();
      await expect(service.sql("update audit_entry set action = 'policy.read' where id = $1", [entry.id])).rejects.toThrow(/audit log/);
      await expect(service.sql('delete from audit_entry where id = $1', [entry.id])).rejects.toThrow(/audit log/);
      await expect(service.sql("update audit_entry set hash = repeat('0', 64) where id = $1", [entry.id])).rejects.toThrow(/audit log/);
    });

    it('names a changed entry', async () => {
      const entries = await chain();
      const target = entries[3];
      await byHand("update audit_entry set action = 'policy.read' where id = $1", [target.id]);
      expect(await verify()).toEqual({ ok: false, checked: 4, firstBrokenId: target.id });
      await byHand('update audit_entry set action = $2 where id = $1', [target.id, target.action]);
      expect((await verify()).ok).toBe(true);
    });

    it('names where a reordering breaks the chain', async () => {
      const entries = await chain();
      const [a, b] = [entries[5], entries[6]];
      await byHand('update audit_entry set position = -1 where id = $1', [a.id]);
      await byHand('update audit_entry set position = $2 where id = $1', [b.id, a.position]);
      await byHand('update audit_entry set position = $2 where id = $1', [a.id, b.position]);
      expect(await verify()).toMatchObject({ ok: false, firstBrokenId: b.id });
      await byHand('update audit_entry set position = -1 where id = $1', [b.id]);
      await byHand('update audit_entry set position = $2 where id = $1', [a.id, a.position]);
      await byHand('update audit_entry set position = $2 where id = $1', [b.id, b.position]);
      expect((await verify()).ok).toBe(true);
    });

    it('names the entry after a removed one', async () => {
      const entries = await chain();
      await byHand('delete from audit_entry where id = $1', [entries[2].id]);
      expect(await verify()).toEqual({ ok: false, checked: 3, firstBrokenId: entries[3].id });
    });
  });
});

describe('the audit log export', () => {
  // No sealer: 200,000 rows to hash would share the process with the measurement.
  const service = useTestService({ AUDIT_SEAL_SECONDS: '0', WEBHOOK_DELIVERY: 'false' });

  it('streams 200,000 entries oldest first in flat memory, however slowly they are read', async () => {
    const { token, organizationId } = await createRootOrganization(service);
    await service.sql(
      `insert into audit_entry (id, occurred_at, action, actor_sub, ip, user_agent, request_id, targets, organization_id, path, changes)
       select gen_random_uuid(), now() - interval '1 day' + g * interval '1 millisecond', 'policy.change', 'alice', '127.0.0.1', $2,
         'seed-' || g, json_build_array(json_build_object('type', 'policy', 'id', gen_random_uuid())), $1, array[$1::uuid],
         json_build_object('petName', json_build_object('from', 'Biscuit', 'to', 'Biscuit ' || g))
       from generate_series(1, 200000) g`,
      [organizationId, USER_AGENT],
    );
    // What is still alive, after a full collection (gc exposed for this measurement).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const live = () => {
      gc();
      const { heapUsed, external } = process.memoryUsage();
      return heapUsed + external;
    };
    const baseline = { live: live(), rss: process.memoryUsage().rss };
    const response = await fetch(new URL('/api/v1/audit-log/export', service.url), { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let lines = 0;
    let rest = '';
    let previous = '';
    let bytes = 0;
    let chunks = 0;
    const samples: Array<{ live: number; rss: number }> = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      const text = rest + decoder.decode(value, { stream: true });
      const split = text.split('\n');
      rest = split.pop() ?? '';
      for (const line of split) {
        const { requestId } = JSON.parse(line) as { requestId: string };
        // Oldest first: the seeded rows in their order (the root's creation is a day younger).
        if (requestId.startsWith('seed-') && previous.startsWith('seed-'))
          expect(Number(requestId.slice(5))).toBe(Number(previous.slice(5)) + 1);
        previous = requestId;
        lines++;
      }
      // A slow reader: the server must wait for it, not buffer the range.
      if (++chunks % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const tenth = Math.min(9, Math.floor((lines / 200_001) * 10));
      if (samples[tenth] === undefined) samples[tenth] = { live: live(), rss: process.memoryUsage().rss };
    }
    expect(rest).toBe('');
    expect(lines).toBe(200_001);
    expect(bytes).toBeGreaterThan(80_000_000);
    // The export is over 90 MB (twice that as strings); held whole, what is alive would grow by
    // 100 MB and more. Streamed, the service and this reader (one process) hold one batch and the
    // socket's buffers: what is alive after a collection stays within 20 MB of the start at every
    // tenth of the stream (measured: under 5 MB), and the RSS within 150 MB (measured: 30 to 95).
    expect(samples.filter(Boolean)).toHaveLength(10);
    for (const sample of samples) expect(sample.live - baseline.live).toBeLessThan(20_000_000);
    expect(Math.max(...samples.map((sample) => sample.rss)) - baseline.rss).toBeLessThan(150_000_000);
  }, 60_000);
});

describe('audit log retention', () => {
  // This instance does not seal: the seeded old entries must be sealed first, before the root's creation.
  const service = useTestService({ AUDIT_SEAL_SECONDS: '0', WEBHOOK_DELIVERY: 'false' });

  it('deletes the entries older than AUDIT_RETENTION_DAYS, and the rest still verifies', async () => {
    const { token, organizationId } = await createRootOrganization(service);
    // Older than 400 days, and before the root's creation in insertion order (a chain's prefix).
    await service.sql(
      `insert into audit_entry (id, seq, occurred_at, action, actor_sub, targets, organization_id, path)
       overriding system value
       select gen_random_uuid(), -10 + g, now() - interval '500 days' + g * interval '1 minute', 'organization.read', 'alice', '[]', $1, array[$1::uuid]
       from generate_series(1, 5) g`,
      [organizationId],
    );
    const sealer = await startTestService(
      { AUDIT_SEAL_SECONDS: '1', AUDIT_RETENTION_DAYS: '400', WEBHOOK_DELIVERY: 'false' },
      { sameDatabaseAs: service },
    );
    try {
      const count = async () =>
        (await service.sql<{ n: number }>('select count(*)::int as n from audit_entry where root_id = $1', [organizationId]))[0].n;
      for (let i = 0; i < 100 && (await count()) !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await count()).toBe(1);
      const [kept] = await service.sql<{ position: string; hash: string | null }>(
        'select position::text as position, hash from audit_entry where root_id = $1',
        [organizationId],
      );
      expect(kept).toMatchObject({ position: '6', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(await service.sql('select position::text as position from audit_anchor where root_id = $1', [organizationId])).toEqual([
        { position: '5' },
      ]);
      const verified = await request(service.url, 'GET', `/api/v1/audit-log/verify?organizationId=${organizationId}`, { token });
      expect(verified.body).toEqual({ ok: true, checked: 1, firstBrokenId: null });
    } finally {
      await sealer.stop();
    }
  });
});

describe('AUDIT_READS', () => {
  const service = useTestService({ AUDIT_READS: 'true', AUDIT_SEAL_SECONDS: '0', WEBHOOK_DELIVERY: 'false' });

  it('appends one policy.read or organization.read entry per request that returns them, up to 100 targets', async () => {
    const { token, organizationId } = await createRootOrganization(service);
    const child = (
      await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody({ parentId: organizationId }) })
    ).body.id as string;
    const policies: Array<{ id: string; number: number }> = [];
    for (const at of [organizationId, child]) {
      const created = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: at }) });
      expect(created.status, created.text).toBe(200);
      policies.push(created.body);
    }
    const reads = async () =>
      service.sql<{ action: string; organization_id: string; targets: Array<{ type: string; id: string }>; request_id: string }>(
        `select action, organization_id, targets, request_id from audit_entry where action like '%.read' order by request_id, action desc`,
      );
    expect(await reads()).toEqual([]);

    const listed = await request(service.url, 'GET', '/api/v1/policy?includeDescendants=true', {
      token,
      headers: { 'x-request-id': 'read-1' },
    });
    expect(listed.body.data).toHaveLength(2);
    // The policies, and their organizations, which the policy read shape carries; written above both: at the root.
    expect(await reads()).toEqual([
      {
        action: 'policy.read',
        organization_id: organizationId,
        targets: expect.arrayContaining(policies.map(({ id }) => ({ type: 'policy', id }))),
        request_id: 'read-1',
      },
      {
        action: 'organization.read',
        organization_id: organizationId,
        targets: expect.arrayContaining([organizationId, child].map((id) => ({ type: 'organization', id }))),
        request_id: 'read-1',
      },
    ]);

    const one = await request(service.url, 'POST', '/graphql', {
      token,
      headers: { 'x-request-id': 'read-2' },
      body: {
        query: 'query ($id: ID!) { organization(id: $id) { id policies(first: 5) { edges { node { number } } } } }',
        variables: { id: child },
      },
    });
    expect(one.body.errors).toBeUndefined();
    expect((await reads()).slice(2)).toEqual([
      { action: 'policy.read', organization_id: child, targets: [{ type: 'policy', id: policies[1].id }], request_id: 'read-2' },
      { action: 'organization.read', organization_id: child, targets: [{ type: 'organization', id: child }], request_id: 'read-2' },
    ]);
    // The child's entries are in its own log, as every entry of its subtree.
    const carol = await service.token({ sub: 'carol', org: child });
    const log = await request(service.url, 'GET', '/api/v1/audit-log?action=policy.read,organization.read', { token: carol });
    expect(log.body.data.map((entry: { requestId: string }) => entry.requestId)).toEqual(['read-2', 'read-2']);
  });
});
