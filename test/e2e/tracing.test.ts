import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/token-minter.js';
import { organizationWithSecrets, policyBody, SECRETS, standalone } from '../support/fixtures.js';
import { createWebhookEndpoint, request } from '../support/http.js';
import { PolicyDocument } from '../generated/graphql.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startMain, stopMain, type Started } from '../support/service-process.js';
import { createTestDatabase, JWT_AUDIENCE, JWT_ISSUER, JWT_SECRET } from '../support/test-service.js';

const SERVER = 2; // OTLP SpanKind
const idOf = (document: unknown) => (document as { __meta__: { hash: string } }).__meta__.hash;
const { account: ACCOUNT, ownerTaxId: OWNER_TAX_ID, organizationTaxId: ORG_TAX_ID } = SECRETS;
const CVC = '8642';
const INLINE_CVC = '5317';

/** The service as `npm start` starts it, exporting OTLP/JSON to `otlp` with only the standard OTEL_* variables, and `env`. */
async function startTraced(otlp: OtlpReceiver, env: Record<string, string>): Promise<Started> {
  return startMain({
    DATABASE_URL: await createTestDatabase(),
    DATA_DIR: await mkdtemp(join(tmpdir(), 'org-policy-tracing-')),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    JWT_SECRET,
    JWT_ISSUER,
    JWT_AUDIENCE,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    ...env,
  });
}

/**
 * OpenTelemetry as an operator runs it (spec section 13): the service started as `npm start`
 * does, with only the standard OTEL_* variables, exporting OTLP/JSON to a local receiver.
 */
describe('tracing', () => {
  let otlp: OtlpReceiver;
  let service: Started;
  let token: string;
  let organizationId: string;
  const hooks: Array<{ headers: IncomingHttpHeaders }> = [];
  let hookServer: Server;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    hookServer = createServer((req, res) => {
      hooks.push({ headers: req.headers });
      req.resume();
      req.on('end', () => res.end());
    });
    await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
    service = await startTraced(otlp, {
      OTEL_SERVICE_NAME: 'tracing-test',
      // Every request, so that every span the service makes is checked (the default samples one in ten: below).
      OTEL_TRACES_SAMPLER: 'always_on',
      GRAPHQL_TRUSTED_DOCUMENTS: 'test/generated/persisted-documents.json',
    });
    token = await mintToken(new TextEncoder().encode(JWT_SECRET), { sub: 'tracer', issuer: JWT_ISSUER, audience: JWT_AUDIENCE });
    const organization = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationWithSecrets(),
    });
    expect(organization.status).toBe(200);
    organizationId = organization.body.id;
  }, 90_000);

  afterAll(async () => {
    if (service) await stopMain(service.child);
    await otlp?.close();
    await new Promise((resolve) => hookServer?.close(resolve));
  });

  const traceparent = () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
  };
  const ancestors = (span: ReceivedSpan, trace: ReceivedSpan[]) => {
    const chain: ReceivedSpan[] = [];
    for (let at = trace.find((each) => each.spanId === span.parentSpanId); at; at = trace.find((each) => each.spanId === at.parentSpanId))
      chain.push(at);
    return chain;
  };

  it('continues an incoming traceparent: HTTP span, GraphQL operation span, and SQL spans beneath it', async () => {
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId, number: 4242, cvc: CVC }),
    });
    expect(created.status).toBe(200);
    const { traceId, parentId, header } = traceparent();
    const answer = await request(service.url, 'POST', '/graphql', {
      token,
      headers: { traceparent: header },
      body: {
        query: 'query FindPolicy($number: SafeInt!) { policy(number: $number) { number petName organization { legalName } } }',
        variables: { number: 4242 },
        operationName: 'FindPolicy',
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.policy.petName).toBe('Biscuit');

    const trace = await otlp.waitForTrace(
      traceId,
      (spans) => spans.some((span) => span.kind === SERVER) && spans.some((span) => span.attributes['db.system.name'] === 'postgresql'),
    );
    const http = trace.find((span) => span.kind === SERVER)!;
    expect(http.parentSpanId).toBe(parentId);
    expect(http.name).toBe('POST /graphql');
    expect(http.attributes['http.route']).toBe('/graphql');
    const operation = trace.find((span) => span.attributes['graphql.operation.name'] === 'FindPolicy')!;
    expect(operation).toBeDefined();
    expect(operation.attributes['graphql.operation.type']).toBe('query');
    expect(ancestors(operation, trace)).toContain(http);
    const statements = trace.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) expect(ancestors(statement, trace)).toContain(operation);
    // SQL spans are named `{db.operation.name} {db.collection.name}` (F14), never after a prepared
    // statement's hash or the database alone: the read of the policy is `SELECT policy`.
    expect(statements.find((span) => span.name === 'SELECT policy')?.attributes).toMatchObject({
      'db.operation.name': 'SELECT',
      'db.collection.name': 'policy',
    });
    for (const statement of statements) {
      expect(statement.name).toBe(`${statement.attributes['db.operation.name']} ${statement.attributes['db.collection.name']}`);
      expect(statement.name).not.toMatch(/q_[0-9a-f]{16}/);
    }
    // No span per field: the resolvers of `policy`, `petName` and `organization` have none.
    expect(trace.filter((span) => span.name.startsWith('graphql.resolve'))).toEqual([]);

    // The access line of that request carries the trace id.
    const line = service
      .output()
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text))
      .find((entry) => entry.req?.id === answer.headers.get('x-request-id'));
    expect(line).toMatchObject({ traceId, operationName: 'FindPolicy', route: '/graphql' });
  });

  // REST routes and trusted documents run prepared (graphql-jit), outside graphql-js's execute.
  it.each([
    ['a REST request', 'GET /api/v1/policy/:id', 'Policy', { method: 'GET', path: '/api/v1/policy/4242' }],
    [
      'a trusted document',
      'POST /graphql',
      'Policy',
      { method: 'POST', path: '/graphql', body: { documentId: idOf(PolicyDocument), variables: { number: 4242 } } },
    ],
  ] as const)('traces %s with its route, its operation span, and its SQL beneath that', async (_, route, operationName, sent) => {
    const { traceId, header } = traceparent();
    const answer = await request(service.url, sent.method, sent.path, {
      token,
      headers: { traceparent: header },
      body: 'body' in sent ? sent.body : undefined,
    });
    expect(answer.status).toBe(200);
    const trace = await otlp.waitForTrace(
      traceId,
      (spans) => spans.some((span) => span.kind === SERVER) && spans.some((span) => span.attributes['db.system.name'] === 'postgresql'),
    );
    const http = trace.find((span) => span.kind === SERVER)!;
    expect(http.name).toBe(route);
    const operation = trace.find((span) => span.name === `query ${operationName}`)!;
    expect(operation.attributes).toMatchObject({ 'graphql.operation.name': operationName, 'graphql.operation.type': 'query' });
    expect(ancestors(operation, trace)).toContain(http);
    const statements = trace.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) expect(ancestors(statement, trace)).toContain(operation);
  });

  it('keeps a body that arrives in several packets in the request’s trace', async () => {
    // Node emits a body's later packets in the connection's context, not the request's (raw-body binds them back).
    const { traceId, header } = traceparent();
    const body = Buffer.from(JSON.stringify(policyBody({ organizationId, number: 4646 })));
    const status = await new Promise<number>((resolve, reject) => {
      const sent = httpRequest(
        `${service.url}/api/v1/policy`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': body.length,
            traceparent: header,
          },
        },
        (res) => res.resume().on('end', () => resolve(res.statusCode!)),
      );
      sent.on('error', reject);
      sent.flushHeaders();
      sent.write(body.subarray(0, 20));
      setTimeout(() => sent.end(body.subarray(20)), 200);
    });
    expect(status).toBe(200);
    const trace = await otlp.waitForTrace(
      traceId,
      (spans) => spans.some((span) => span.kind === SERVER) && spans.some((span) => span.attributes['db.system.name'] === 'postgresql'),
    );
    const http = trace.find((span) => span.kind === SERVER)!;
    expect(http.name).toBe('POST /api/v1/policy');
    const operation = trace.find((span) => span.name === 'mutation CreatePolicy')!;
    expect(ancestors(operation, trace)).toContain(http);
    const statements = trace.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    // Named as OpenTelemetry's database conventions ask, `{db.operation.name} {db.collection.name}`
    // (F14): the create's one statement (policy, transaction, charges and event, as CTEs) is named after its first write.
    expect(statements.find((span) => span.name === 'INSERT policy')?.attributes).toMatchObject({
      'db.operation.name': 'INSERT',
      'db.collection.name': 'policy',
    });
    // The creates budget is spent before the operation runs (its upsert in table "rate_limit"),
    // and the Consistency-Token is read after it (the primary's WAL position once the write has
    // committed), both beneath the request's span; every other statement is the operation's.
    for (const statement of statements) {
      const budget = statement.attributes['db.collection.name'] === 'rate_limit';
      const token = String(statement.attributes['db.query.text']).startsWith('select pg_current_wal_insert_lsn()');
      expect(ancestors(statement, trace)).toContain(budget || token ? http : operation);
    }
    expect(statements.filter((statement) => statement.attributes['db.collection.name'] === 'rate_limit')).toHaveLength(1);
  });

  it('sends the trace on to webhook receivers: a delivery span in the create request’s trace, and its traceparent', async () => {
    const endpoint = await createWebhookEndpoint(
      service.url,
      token,
      organizationId,
      `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hooks`,
    );
    expect(endpoint.body.errors).toBeUndefined();
    const { traceId, header } = traceparent();
    const created = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      headers: { traceparent: header },
      body: policyBody({ organizationId, number: 4343 }),
    });
    expect(created.status).toBe(200);

    const trace = await otlp.waitForTrace(traceId, (spans) => spans.some((span) => span.name === 'webhook delivery'));
    const delivery = trace.find((span) => span.name === 'webhook delivery')!;
    expect(delivery.attributes['server.address']).toBe('127.0.0.1');
    expect(delivery.attributes['http.response.status_code']).toBe(200);
    const hook = hooks.find((each) => each.headers.traceparent?.includes(traceId));
    expect(hook?.headers.traceparent).toBe(`00-${traceId}-${delivery.spanId}-01`);
  });

  it('exports no secret: no token, cvc, account number or tax id in any span, metric or log line', async () => {
    // A cvc in variables, a cvc written into the document itself, and a GET with a query string.
    await request(service.url, 'POST', '/graphql', {
      token,
      body: {
        query: 'mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) { id } }',
        variables: { input: policyBody({ organizationId, number: 4444, cvc: CVC }) },
      },
    });
    const inline = await request(service.url, 'POST', '/graphql', {
      token,
      body: {
        query: `mutation Inline { createPolicy(input: { organizationId: "${organizationId}", number: 4545, ownerFirstname: "Rosa", ownerLastname: "Diaz", petName: "Inline", effectiveDate: "2026-01-01", expirationDate: "2027-01-01", coverageSlug: "accident-illness-basic", cvc: "${INLINE_CVC}" }) { id } }`,
      },
    });
    expect(inline.body.errors).toBeUndefined();
    await request(
      service.url,
      'GET',
      `/graphql?query=${encodeURIComponent(`{ policy(number: 4545) { number } }`)}&variables=${encodeURIComponent(`{"cvc":"${INLINE_CVC}"}`)}`,
      { token },
    );
    const { traceId, header } = traceparent();
    await request(service.url, 'GET', '/api/v1/policy/4545', { token, headers: { traceparent: header } });
    await otlp.waitForTrace(traceId, (spans) => spans.some((span) => span.kind === SERVER));

    const exported = otlp.bodies.join('\n');
    // The creates were exported (their operation and their SQL), and nothing they carried.
    expect(exported).toContain('mutation Inline');
    expect(exported).toContain('insert into policy');
    for (const secret of [token, ACCOUNT, OWNER_TAX_ID, ORG_TAX_ID]) expect(exported).not.toContain(secret);
    for (const cvc of [CVC, INLINE_CVC]) expect(exported).not.toMatch(standalone(cvc));
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toContain('graphql_operations_total');
    for (const secret of [token, ACCOUNT, OWNER_TAX_ID, ORG_TAX_ID]) expect(metrics).not.toContain(secret);
    for (const cvc of [CVC, INLINE_CVC]) expect(metrics).not.toMatch(standalone(cvc));
    const log = service.output();
    expect(log).toContain('request completed');
    for (const secret of [token, ACCOUNT, OWNER_TAX_ID, ORG_TAX_ID]) expect(log).not.toContain(secret);
    for (const cvc of [CVC, INLINE_CVC]) expect(log).not.toMatch(standalone(cvc));
  });
});

/**
 * Tracing on with no sampler set (contract section 13): parent-based, one request in ten. A
 * request the sampler passes over makes no span at all, neither its own nor its operation's nor
 * its statements', and its log lines carry no trace id; a caller's decision in `traceparent`
 * is kept, either way.
 */
describe('tracing with the default sampler', () => {
  let otlp: OtlpReceiver;
  let service: Started;
  let token: string;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    service = await startTraced(otlp, { WEB_CONCURRENCY: '1' });
    token = await mintToken(new TextEncoder().encode(JWT_SECRET), { sub: 'sampled', issuer: JWT_ISSUER, audience: JWT_AUDIENCE });
    const organization = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationWithSecrets() });
    expect(organization.status).toBe(200);
    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId: organization.body.id, number: 5151 }),
    });
    expect(policy.status).toBe(200);
  }, 90_000);

  afterAll(async () => {
    if (service) await stopMain(service.child);
    await otlp?.close();
  });

  /** Waits until a request sampled by its caller is exported: everything ended before it has been exported too. */
  const flushed = async () => {
    const traceId = randomBytes(16).toString('hex');
    const sent = await request(service.url, 'GET', '/healthz', {
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(sent.status).toBe(200);
    // /healthz is not traced: a read is.
    await request(service.url, 'GET', '/api/v1/policy/5151', {
      token,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    await otlp.waitForTrace(traceId, (spans) => spans.some((span) => span.kind === SERVER));
  };

  it('samples about one request in ten, each sampled one whole, and makes nothing for the others', async () => {
    const reads = 300;
    for (let sent = 0; sent < reads; sent++) {
      expect((await request(service.url, 'GET', '/api/v1/policy/5151', { token })).status).toBe(200);
    }
    await flushed();
    const roots = otlp.spans.filter((span) => span.kind === SERVER && span.name === 'GET /api/v1/policy/:id' && !span.parentSpanId);
    // Binomial(300, 0.1): mean 30, standard deviation 5.2; outside 10-60 about once in 10^5 runs.
    expect(roots.length).toBeGreaterThanOrEqual(10);
    expect(roots.length).toBeLessThanOrEqual(60);
    for (const root of roots) {
      const spans = otlp.spans.filter((span) => span.traceId === root.traceId);
      expect(spans.some((span) => span.name === 'query Policy')).toBe(true);
      expect(spans.some((span) => span.attributes['db.system.name'] === 'postgresql')).toBe(true);
    }
    // Every exported span belongs to a sampled request's trace: none of an unsampled one's work.
    const sampled = new Set(roots.map((root) => root.traceId));
    const orphans = otlp.spans.filter((span) => !sampled.has(span.traceId) && span.kind !== SERVER && !span.parentSpanId);
    expect(orphans.map((span) => span.name)).toEqual([]);
    // The access lines: a trace id on the sampled requests' lines only.
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"route":"/api/v1/policy/:id"') && line.includes('"sub":"sampled"'))
      .map((line) => JSON.parse(line) as { traceId?: string });
    const traced = lines.filter((line) => line.traceId);
    // Each sampled read's line, and the line of flushed()'s read, which its caller sampled.
    expect(traced.filter((line) => sampled.has(line.traceId!)).length).toBe(roots.length);
    expect(traced.length).toBe(roots.length + 1);
  });

  it("keeps the caller's decision: a traceparent not sampled makes no span, a sampled one a whole trace", async () => {
    const unsampled = randomBytes(16).toString('hex');
    const answer = await request(service.url, 'GET', '/api/v1/policy/5151', {
      token,
      headers: { traceparent: `00-${unsampled}-${randomBytes(8).toString('hex')}-00` },
    });
    expect(answer.status).toBe(200);
    await flushed();
    expect(otlp.spans.filter((span) => span.traceId === unsampled)).toEqual([]);
  });
});
