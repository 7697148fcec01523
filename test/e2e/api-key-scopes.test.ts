import { beforeAll, describe, expect, it } from 'vitest';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { CONTRACT_SCOPES, type ContractScope } from '../support/api-key-scopes.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { createWebhookEndpoint, graphql, request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Every scope against every REST route and every GraphQL root field (contract section 20). The
 * expectations are written here from the contract's words, not read from the service's
 * declarations; the tables must name every route of REST_ROUTES and every root field the
 * service's schema has (read by introspection), so a new route or field cannot be forgotten.
 * For each: a key with every scope but the one needed gets 403 FORBIDDEN naming it; a key with
 * only that one is never refused for its scopes. Keys cannot manage keys, whatever their scopes.
 */
const SCOPES = CONTRACT_SCOPES;
type Scope = ContractScope;
type Need = Scope | 'tokens-only';

/** "Reading policies, quotes, transactions and payments needs policies:read; quotes, policy creates and section 14's steps policies:write; ..." */
const ROUTES: Record<string, Need> = {
  'POST /api/v1/organization': 'organizations:write',
  'GET /api/v1/organization': 'organizations:read',
  'GET /api/v1/organization/:id': 'organizations:read',
  'PATCH /api/v1/organization/:id': 'organizations:write',
  'POST /api/v1/policy': 'policies:write',
  'GET /api/v1/policy': 'policies:read',
  'GET /api/v1/policy/:id': 'policies:read',
  'POST /api/v1/quote': 'policies:write',
  'GET /api/v1/quote/:id': 'policies:read',
  'GET /api/v1/policy/:id/transactions': 'policies:read',
  'POST /api/v1/policy/:id/changes': 'policies:write',
  'POST /api/v1/policy/:id/cancellation': 'policies:write',
  'POST /api/v1/policy/:id/reinstatement': 'policies:write',
  'POST /api/v1/policy/:id/renewal': 'policies:write',
  'GET /api/v1/policy/:id/payments': 'policies:read',
  'POST /api/v1/policy/:id/payments': 'billing:write',
  'POST /api/v1/policy/:id/refunds': 'billing:write',
  'GET /api/v1/events': 'events:read',
  'GET /api/v1/events/:id': 'events:read',
  'POST /api/v1/webhook-endpoints': 'webhooks:write',
  'GET /api/v1/webhook-endpoints': 'webhooks:write',
  'GET /api/v1/webhook-endpoints/:id': 'webhooks:write',
  'GET /api/v1/webhook-endpoints/:id/attempts': 'webhooks:write',
  'PATCH /api/v1/webhook-endpoints/:id': 'webhooks:write',
  'DELETE /api/v1/webhook-endpoints/:id': 'webhooks:write',
  'POST /api/v1/webhook-endpoints/:id/secret-rotation': 'webhooks:write',
  'POST /api/v1/webhook-endpoints/:id/test': 'webhooks:write',
  'POST /api/v1/webhook-endpoints/:id/recovery': 'webhooks:write',
  'POST /api/v1/events/:id/redeliveries': 'webhooks:write',
  'POST /api/v1/api-keys': 'tokens-only',
  'GET /api/v1/api-keys': 'organizations:read',
  'GET /api/v1/api-keys/:id': 'organizations:read',
  'DELETE /api/v1/api-keys/:id': 'tokens-only',
  'POST /api/v1/api-keys/:id/rotation': 'tokens-only',
  'GET /api/v1/audit-log': 'audit:read',
  'GET /api/v1/audit-log/verify': 'audit:read',
};

/** A write scope includes its read (docs/decisions.md, "API keys"): a key lacking a read lacks the write too. */
const WRITE_OF: Partial<Record<Scope, Scope>> = { 'organizations:read': 'organizations:write', 'policies:read': 'policies:write' };
const allBut = (need: Scope): Scope[] => SCOPES.filter((scope) => scope !== need && scope !== WRITE_OF[need]);

interface Fixtures {
  organizationId: string;
  number: number;
  quoteId: string;
  eventId: string;
  endpointId: string;
  keyId: string;
}

/** A root field's operation, run by keys of every scope; `need` is what the contract says it takes. */
interface FieldCase {
  need: Need | 'any';
  query: string;
  variables?: (fixtures: Fixtures) => Record<string, unknown>;
}

const POLICY_ANSWER = '{ number status billing { status } organization { id name parentId } }';
const FIELDS: Record<string, FieldCase> = {
  organization: {
    // The root field is open; the organization's data is what needs organizations:read.
    need: 'organizations:read',
    query: 'query ($id: ID!) { organization(id: $id) { id legalName } }',
    variables: (f) => ({ id: f.organizationId }),
  },
  policy: {
    need: 'policies:read',
    query: `query ($n: SafeInt!) { policy(number: $n) ${POLICY_ANSWER} }`,
    variables: (f) => ({ n: f.number }),
  },
  coverages: { need: 'policies:read', query: '{ coverages { slug } }' },
  quote: { need: 'policies:read', query: 'query ($id: ID!) { quote(id: $id) { id } }', variables: (f) => ({ id: f.quoteId }) },
  event: { need: 'events:read', query: 'query ($id: ID!) { event(id: $id) { id } }', variables: (f) => ({ id: f.eventId }) },
  events: { need: 'events:read', query: '{ events(first: 1) { edges { node { id } } } }' },
  apiKey: { need: 'organizations:read', query: 'query ($id: ID!) { apiKey(id: $id) { id } }', variables: (f) => ({ id: f.keyId }) },
  apiKeys: { need: 'organizations:read', query: '{ apiKeys(first: 1) { edges { node { id } } } }' },
  webhookEndpoint: {
    need: 'webhooks:write',
    query: 'query ($id: ID!) { webhookEndpoint(id: $id) { id } }',
    variables: (f) => ({ id: f.endpointId }),
  },
  webhookEndpoints: { need: 'webhooks:write', query: '{ webhookEndpoints(first: 1) { edges { node { id } } } }' },
  node: {
    need: 'policies:read',
    query: 'query ($id: ID!) { node(id: $id) { id ... on Quote { petName } } }',
    variables: (f) => ({ id: f.quoteId }),
  },
  viewer: { need: 'any', query: '{ viewer { sub } }' },
  createOrganization: {
    need: 'organizations:write',
    query: 'mutation ($input: CreateOrganizationInput!) { createOrganization(input: $input) { id legalName } }',
    variables: (f) => ({ input: organizationBody({ parentId: f.organizationId, legalName: 'Scoped Child' }) }),
  },
  updateOrganization: {
    need: 'organizations:write',
    query: 'mutation ($id: ID!) { updateOrganization(id: $id, input: { description: "scoped" }) { id legalName } }',
    variables: (f) => ({ id: f.organizationId }),
  },
  createPolicy: {
    need: 'policies:write',
    query: `mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) ${POLICY_ANSWER} }`,
    variables: (f) => ({ input: policyBody({ organizationId: f.organizationId }) }),
  },
  createQuote: {
    need: 'policies:write',
    query: 'mutation ($input: CreateQuoteInput!) { createQuote(input: $input) { id petName } }',
    variables: (f) => ({ input: policyBody({ organizationId: f.organizationId }) }),
  },
  changePolicy: {
    need: 'policies:write',
    query: `mutation ($n: SafeInt!) { changePolicy(number: $n, input: { effectiveDate: "2026-02-01", petName: "Scout" }) ${POLICY_ANSWER} }`,
    variables: (f) => ({ n: f.number }),
  },
  cancelPolicy: {
    need: 'policies:write',
    query: `mutation ($n: SafeInt!) { cancelPolicy(number: $n, input: { effectiveDate: "2026-03-01", reason: insured_request }) ${POLICY_ANSWER} }`,
    variables: (f) => ({ n: f.number }),
  },
  reinstatePolicy: {
    need: 'policies:write',
    query: `mutation ($n: SafeInt!) { reinstatePolicy(number: $n, input: {}) ${POLICY_ANSWER} }`,
    variables: (f) => ({ n: f.number }),
  },
  renewPolicy: {
    need: 'policies:write',
    query: `mutation ($n: SafeInt!) { renewPolicy(number: $n, input: {}) ${POLICY_ANSWER} }`,
    variables: (f) => ({ n: f.number }),
  },
  recordPayment: {
    need: 'billing:write',
    query: `mutation ($n: SafeInt!, $r: String!) { recordPayment(number: $n, input: { amount: 100, reference: $r }) ${POLICY_ANSWER} }`,
    variables: (f) => ({ n: f.number, r: `scoped-${Math.random()}` }),
  },
  recordRefund: {
    need: 'billing:write',
    query: `mutation ($n: SafeInt!, $r: String!) { recordRefund(number: $n, input: { amount: 1, reference: $r }) ${POLICY_ANSWER} }`,
    variables: (f) => ({ n: f.number, r: `scoped-${Math.random()}` }),
  },
  createWebhookEndpoint: {
    need: 'webhooks:write',
    query: 'mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1:9/scoped" }) { id } }',
  },
  updateWebhookEndpoint: {
    need: 'webhooks:write',
    query: 'mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { description: "scoped" }) { id } }',
    variables: (f) => ({ id: f.endpointId }),
  },
  deleteWebhookEndpoint: {
    need: 'webhooks:write',
    query: 'mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) }',
    // Another endpoint's id: the fixture stays for the reads.
    variables: () => ({ id: '00000000-0000-4000-8000-000000000000' }),
  },
  rotateWebhookEndpointSecret: {
    need: 'webhooks:write',
    query: 'mutation ($id: ID!) { rotateWebhookEndpointSecret(id: $id, input: { graceSeconds: 60 }) { secret } }',
    variables: (f) => ({ id: f.endpointId }),
  },
  sendTestWebhook: {
    need: 'webhooks:write',
    query: 'mutation ($id: ID!) { sendTestWebhook(id: $id) { eventId } }',
    variables: (f) => ({ id: f.endpointId }),
  },
  redeliverEvent: {
    need: 'webhooks:write',
    query: 'mutation ($id: ID!, $endpointId: ID!) { redeliverEvent(id: $id, endpointId: $endpointId) { id } }',
    variables: (f) => ({ id: f.eventId, endpointId: f.endpointId }),
  },
  recoverWebhookEndpoint: {
    need: 'webhooks:write',
    query: 'mutation ($id: ID!, $since: String!) { recoverWebhookEndpoint(id: $id, input: { since: $since }) { queued } }',
    variables: (f) => ({ id: f.endpointId, since: new Date().toISOString() }),
  },
  createApiKey: { need: 'tokens-only', query: 'mutation { createApiKey(input: { name: "k", scopes: ["policies:read"] }) { id } }' },
  rotateApiKey: { need: 'tokens-only', query: 'mutation ($id: ID!) { rotateApiKey(id: $id) { id } }', variables: (f) => ({ id: f.keyId }) },
  revokeApiKey: { need: 'tokens-only', query: 'mutation ($id: ID!) { revokeApiKey(id: $id) }', variables: (f) => ({ id: f.keyId }) },
  auditLog: { need: 'audit:read', query: '{ auditLog(first: 1) { edges { node { id action } } } }' },
  auditLogVerification: { need: 'audit:read', query: '{ auditLogVerification { ok checked } }' },
};

describe('API key scopes on every route and root field (contract section 20)', () => {
  const service = useTestService({ RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0' });
  let token: string;
  const fixtures = {} as Fixtures;
  const keys = new Map<string, string>();

  /** A key with exactly these scopes, made once. */
  const keyWith = async (scopes: readonly Scope[]): Promise<string> => {
    const name = [...scopes].sort().join(' ');
    const known = keys.get(name);
    if (known) return known;
    const made = await request(service.url, 'POST', '/api/v1/api-keys', { token, body: { name: name.slice(0, 100), scopes } });
    expect(made.status, made.text).toBe(200);
    keys.set(name, made.body.key);
    return made.body.key;
  };

  beforeAll(async () => {
    ({ token, organizationId: fixtures.organizationId } = await createRootOrganization(service));
    const policy = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 4_141_001 }) });
    expect(policy.status, policy.text).toBe(200);
    fixtures.number = 4_141_001;
    const quote = await request(service.url, 'POST', '/api/v1/quote', { token, body: policyBody() });
    expect(quote.status, quote.text).toBe(200);
    fixtures.quoteId = quote.body.id;
    const events = await request(service.url, 'GET', '/api/v1/events?limit=1', { token });
    fixtures.eventId = events.body.data[0].id;
    const endpoint = await createWebhookEndpoint(service.url, token, fixtures.organizationId, 'http://127.0.0.1:9/hooks');
    expect(endpoint.status, endpoint.text).toBe(200);
    fixtures.endpointId = endpoint.body.data.createWebhookEndpoint.id;
    const key = await request(service.url, 'POST', '/api/v1/api-keys', { token, body: { name: 'fixture', scopes: ['policies:read'] } });
    fixtures.keyId = key.body.id;
  });

  it('names every REST route, and the reference lists the same scope for each', async () => {
    expect(Object.keys(ROUTES).sort()).toEqual(REST_ROUTES.map((route) => `${route.method} ${route.path}`).sort());
    const document = (await request(service.url, 'GET', '/api/v1/openapi.json')).body;
    for (const [route, need] of Object.entries(ROUTES)) {
      const [method, path] = route.split(' ');
      const operation = document.paths[path.replace(/:(\w+)/g, '{$1}')][method.toLowerCase()];
      expect(operation['x-api-key-scopes'], route).toEqual([need]);
    }
  });

  const pathOf = (path: string): string =>
    path.replace(':id', () => {
      if (path.startsWith('/api/v1/organization')) return fixtures.organizationId;
      if (path.startsWith('/api/v1/policy')) return String(fixtures.number);
      if (path.startsWith('/api/v1/quote')) return fixtures.quoteId;
      if (path.startsWith('/api/v1/events')) return fixtures.eventId;
      if (path.startsWith('/api/v1/webhook-endpoints')) return fixtures.endpointId;
      if (path.startsWith('/api/v1/audit-log')) return '';
      return fixtures.keyId;
    });

  it.each(Object.entries(ROUTES))('%s: refused without its scope, never for scopes with it', async (route, need) => {
    const [method, path] = route.split(' ');
    const body = method === 'GET' || method === 'DELETE' ? undefined : {};
    // The route's own scope missing (for a token-only route: every scope there is).
    const without = await keyWith(need === 'tokens-only' ? SCOPES : allBut(need));
    const refused = await request(service.url, method, pathOf(path), { token: without, body });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    if (need !== 'tokens-only') expect(refused.body.detail).toContain(`"${need}"`);
    if (need === 'tokens-only') return;
    // Its scope alone: a read answers (200), a write gets past the gate (its empty body is 400, a step may be 409).
    const allowed = await request(service.url, method, pathOf(path), { token: await keyWith([need]), body });
    expect(allowed.status, allowed.text).not.toBe(403);
    if (method === 'GET') expect(allowed.status, allowed.text).toBe(200);
  });

  it('the audit log export, a route of its own, needs audit:read too', async () => {
    const refused = await request(service.url, 'GET', '/api/v1/audit-log/export', { token: await keyWith(allBut('audit:read')) });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN', detail: expect.stringContaining('"audit:read"') });
    const allowed = await fetch(new URL('/api/v1/audit-log/export', service.url), {
      headers: { authorization: `Bearer ${await keyWith(['audit:read'])}` },
    });
    expect(allowed.status).toBe(200);
    expect((await allowed.text()).split('\n').filter(Boolean).length).toBeGreaterThan(0);
    const document = (await request(service.url, 'GET', '/api/v1/openapi.json')).body;
    expect(document.paths['/api/v1/audit-log/export'].get['x-api-key-scopes']).toEqual(['audit:read']);
  });

  it('names every root field of the schema', async () => {
    const introspected = await graphql(
      service.url,
      '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }',
      {},
      token,
    );
    const schema = introspected.body.data.__schema;
    const roots = [...schema.queryType.fields, ...schema.mutationType.fields].map((field: { name: string }) => field.name);
    expect(Object.keys(FIELDS).sort()).toEqual(roots.sort());
  });

  it.each(Object.entries(FIELDS))(
    '%s: the field errs FORBIDDEN without its scope, never with it',
    async (field, { need, query, variables }) => {
      const values = variables?.(fixtures) ?? {};
      const forbidden = (body: { errors?: Array<{ extensions: { code: string }; message: string; path?: string[] }> }) =>
        (body.errors ?? []).filter((error) => error.extensions.code === 'FORBIDDEN');
      if (need !== 'any') {
        const without = await keyWith(need === 'tokens-only' ? SCOPES : allBut(need));
        const refused = await graphql(service.url, query, values, without);
        const errors = forbidden(refused.body);
        expect(errors.length, JSON.stringify(refused.body)).toBeGreaterThan(0);
        expect(errors[0].path?.[0]).toBe(field);
        if (need !== 'tokens-only') expect(errors[0].message).toContain(`"${need}"`);
      }
      if (need === 'tokens-only') return;
      const allowed = await graphql(service.url, query, values, await keyWith(need === 'any' ? ['audit:read'] : [need]));
      expect(forbidden(allowed.body), JSON.stringify(allowed.body)).toEqual([]);
    },
  );
});
