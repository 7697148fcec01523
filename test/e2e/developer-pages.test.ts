import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { useTestService } from '../support/test-service.js';
import { EXAMPLE_FILLS, EXAMPLE_OPERATION, EXAMPLE_VARIABLES } from '../../src/http/developer-pages.js';
import { organizationBody } from '../support/fixtures.js';
import { request } from '../support/http.js';

/**
 * The developer pages over HTTP (spec section 9): on outside production, off in production
 * unless DEVELOPER_PAGES=true; every asset from the service itself. test/browser renders them.
 */
const PAGES = ['/graphiql', '/api/v1/docs'];
const ASSETS = [
  '/assets/react.js',
  '/assets/react-dom.js',
  '/assets/graphiql.js',
  '/assets/graphiql.css',
  '/assets/swagger-ui.js',
  '/assets/swagger-ui.css',
  '/assets/graphiql-start.js',
  '/assets/swagger-ui-start.js',
  '/assets/pages.css',
];
const html = { accept: 'text/html,application/xhtml+xml' };

describe('developer pages outside production', () => {
  const service = useTestService();

  it('serves GraphiQL and the REST reference without a token, with a policy that lets them reach only this origin', async () => {
    for (const path of PAGES) {
      const response = await fetch(service.url + path, { headers: html });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toMatch(/default-src 'self'.*connect-src 'self'/);
      const page = await response.text();
      // Every script and style is a path on this service: nothing from another host.
      const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
      expect(sources.length).toBeGreaterThan(1);
      for (const source of sources) expect(source, path).toMatch(/^\/assets\//);
    }
  });

  it('serves every asset the pages name, with its type', async () => {
    for (const path of ASSETS) {
      const response = await fetch(service.url + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect((await response.arrayBuffer()).byteLength, path).toBeGreaterThan(50);
    }
  });

  it('serves a favicon, an ICO the browser asks every page for (issue 25, F17)', async () => {
    const response = await fetch(service.url + '/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/x-icon');
    const icon = Buffer.from(await response.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image of 16x16 at 32 bits, whose bytes follow it whole.
    expect([icon.readUInt16LE(0), icon.readUInt16LE(2), icon.readUInt16LE(4), icon[6], icon[7], icon.readUInt16LE(12)]).toEqual([
      0, 1, 1, 16, 16, 32,
    ]);
    expect(icon.readUInt32LE(18) + icon.readUInt32LE(14)).toBe(icon.length);
  });

  it('preloads GraphiQL with the example operation and a header placeholder, never a token', async () => {
    const script = await (await fetch(service.url + '/assets/graphiql-start.js')).text();
    expect(script).toContain('query Example');
    expect(script).toContain('Bearer <token>');
    expect(script).toContain("new URL('/graphql', location.href)");
    // The fills of EXAMPLE_FILLS, in a script that at least compiles (test/browser runs it).
    expect(script).toContain(`const FILLS = ${JSON.stringify(EXAMPLE_FILLS)};`);
    expect(() => new Script(script)).not.toThrow();
  });

  /**
   * Runs the examples as GraphiQL does: each answer fills in the variables EXAMPLE_FILLS names
   * (the page's script does the same in a browser: test/browser).
   */
  const exampleRunner = (token: string) => {
    const variables: Record<string, unknown> = { ...EXAMPLE_VARIABLES };
    const run = async (operationName: string) => {
      const response = await request(service.url, 'POST', '/graphql', {
        token,
        body: { query: EXAMPLE_OPERATION, variables, operationName },
      });
      expect(response.body.errors, `${operationName}: ${response.text}`).toBeUndefined();
      for (const { operation, variable, path, unlessSet } of EXAMPLE_FILLS) {
        if (operation !== operationName) continue;
        const value = path.reduce<any>((node, key) => node?.[key], response.body.data);
        if (value != null && !(unlessSet && variables[variable] !== EXAMPLE_VARIABLES[variable])) variables[variable] = value;
      }
      return response.body.data;
    };
    return { run, variables };
  };

  it("has example operations that succeed as written, in order, with the start-up banner's kind of token (sub only, no org claim; issue 36, F27): Example, Organization, Quote, Issue, Pay, Refund, Cancel, Reinstate, Change, Renewable, Renew", async () => {
    const sub = 'example-runner';
    const { run, variables } = exampleRunner(await service.token({ sub }));
    // A sub with no organization yet: Example fills nothing, Organization makes one and fills it.
    expect(await run('Example')).toMatchObject({ viewer: { sub, organizations: { edges: [] } } });
    expect(variables.organizationId).toBe(EXAMPLE_VARIABLES.organizationId);
    const organization = (await run('Organization')).createOrganization;
    expect(variables.organizationId).toBe(organization.id);
    const quote = (await run('Quote')).createQuote;
    expect(quote.status).toBe('open');
    expect(variables.quoteId).toBe(quote.id);
    const issued = (await run('Issue')).createPolicy;
    expect(issued.status).toBe('active');
    expect(variables.number).toBe(issued.number);
    // Two months paid on the day the policy starts: a credit of one; the refund takes it back (contract section 19).
    const paid = (await run('Pay')).recordPayment;
    expect(paid).toMatchObject({
      version: 2,
      billing: { billed: 2900, paid: 5800, balance: -2900, status: 'credit', nextDueAmount: 2900 },
    });
    const refunded = (await run('Refund')).recordRefund;
    expect(refunded).toMatchObject({ version: 3, billing: { balance: 0, status: 'settled' } });
    expect(refunded.payments.edges.map((edge: { node: { type: string } }) => edge.node.type)).toEqual(['payment', 'refund']);
    const cancelled = (await run('Cancel')).cancelPolicy;
    expect(cancelled.cancellation).toMatchObject({ reason: 'insured_request', method: 'short_rate' });
    expect(cancelled.charges.some((charge: { type: string }) => charge.type === 'credit')).toBe(true);
    const reinstated = (await run('Reinstate')).reinstatePolicy;
    expect(reinstated).toMatchObject({ status: 'active', cancellation: null });
    expect(reinstated.transactions.edges.map((edge: { node: { type: string } }) => edge.node.type)).toEqual([
      'issuance',
      'cancellation',
      'reinstatement',
    ]);
    const changed = (await run('Change')).changePolicy;
    expect(changed.transactions.edges.at(-1).node).toMatchObject({
      type: 'change',
      changes: { petName: { from: 'Biscuit', to: 'Biscuit Diaz' } },
    });
    expect(changed.charges.filter((charge: { type: string }) => charge.type === 'premium').length).toBeGreaterThan(12);
    const renewable = (await run('Renewable')).createPolicy;
    expect(renewable.status).toBe('active');
    expect(variables.renewable).toBe(renewable.number);
    const renewed = (await run('Renew')).renewPolicy;
    expect(renewed).toMatchObject({
      renewalOf: renewable.number,
      effectiveDate: renewable.expirationDate,
      status: 'pending',
      coverage: { slug: 'accident-illness-plus' },
    });
    expect(renewed.transactions.edges[0].node.type).toBe('renewal');
  });

  it("fills organizationId from Example's first organization, so that a caller who has one goes straight to Quote; Organization then replaces it, Example does not", async () => {
    const sub = 'example-owner';
    const token = await service.token({ sub });
    const first = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    const { run, variables } = exampleRunner(token);
    await run('Example');
    expect(variables.organizationId).toBe(first.body.id);
    expect((await run('Quote')).createQuote.status).toBe('open');
    const made = (await run('Organization')).createOrganization;
    expect(variables.organizationId).toBe(made.id);
    await run('Example');
    expect(variables.organizationId).toBe(made.id);
  });

  it('names no operation and no variable in EXAMPLE_FILLS that the examples do not have', () => {
    const operations = [...EXAMPLE_OPERATION.matchAll(/^(?:query|mutation) (\w+)/gm)].map((match) => match[1]);
    const declared = new Set([...EXAMPLE_OPERATION.matchAll(/\$(\w+): /g)].map((match) => match[1]));
    for (const { operation, variable } of EXAMPLE_FILLS) {
      expect(operations).toContain(operation);
      expect(declared).toContain(variable);
    }
    // Every variable an example declares has a placeholder, and a fill.
    expect([...declared].sort()).toEqual(Object.keys(EXAMPLE_VARIABLES).sort());
    expect(new Set(EXAMPLE_FILLS.map(({ variable }) => variable))).toEqual(declared);
    // Sandbox embeds them in an inline script that escapes only the first <, > and & (see EXAMPLE_VARIABLES).
    expect(EXAMPLE_OPERATION + JSON.stringify(EXAMPLE_VARIABLES)).not.toMatch(/[<>&]/);
  });

  it('serves Sandbox at GET /graphql to a browser, preloaded, telemetry off', async () => {
    const response = await fetch(service.url + '/graphql', { headers: html });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('"runTelemetry":false');
    expect(page).toContain('query Example');
    expect(page).toContain('"Authorization":"Bearer \\u003ctoken\\u003e"');
    expect(page).toContain('"includeCookies":false');
  });

  it('answers a plain GET /graphql (curl, no query) with a one-line hint, while a GET with a query still meets the CSRF rule (issue 25, F11)', async () => {
    for (const headers of [{}, { accept: '*/*' }, { accept: 'application/json' }]) {
      const response = await fetch(service.url + '/graphql', { headers });
      expect(response.status).toBe(400);
      const { errors } = (await response.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
      expect(errors).toEqual([
        {
          message:
            'Send a GraphQL operation: POST /graphql with a JSON body {"query": "{ viewer { sub } }"} and Authorization: Bearer <token>. In a browser: GraphiQL at /graphiql, Apollo Sandbox at /graphql.',
          extensions: { code: 'BAD_REQUEST' },
        },
      ]);
    }
    const token = await service.token({ sub: 'curl-user' });
    const query = await fetch(service.url + '/graphql?query=' + encodeURIComponent('{ viewer { sub } }'), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(query.status).toBe(400);
    expect(await query.text()).toContain('Cross-Site Request Forgery');
    const preflighted = await fetch(service.url + '/graphql?query=' + encodeURIComponent('{ viewer { sub } }'), {
      headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' },
    });
    expect(await preflighted.json()).toEqual({ data: { viewer: { sub: 'curl-user' } } });
  });

  it('answers 404 below /graphql: /graphql/<more> is not a second GraphQL endpoint (issue 25, F11)', async () => {
    const token = await service.token({ sub: 'curl-user' });
    for (const [method, path] of [
      ['POST', '/graphql/foo'],
      ['GET', '/graphql/schema'],
      ['POST', '/graphql/graphql'],
    ] as const) {
      const response = await request(service.url, method, path, {
        token,
        body: method === 'POST' ? { query: '{ viewer { sub } }' } : undefined,
      });
      expect(response.status, path).toBe(404);
      expect(response.body, path).toMatchObject({ code: 'NOT_FOUND', detail: `No route for ${method} ${path}.` });
    }
  });

  it('answers / with JSON for a tool and HTML for a browser, both linking every page', async () => {
    const json = (await (await fetch(service.url + '/')).json()) as { links: Record<string, string> };
    expect(json.links).toEqual({
      graphql: '/graphql',
      graphiql: '/graphiql',
      docs: '/api/v1/docs',
      openapi: '/api/v1/openapi.json',
      healthz: '/healthz',
      readyz: '/readyz',
      version: '/version',
    });
    const page = await (await fetch(service.url + '/', { headers: html })).text();
    for (const link of Object.values(json.links)) expect(page).toContain(`href="${link}"`);
  });
});

describe('developer pages in production', () => {
  const off = useTestService({ NODE_ENV: 'production' });
  const on = useTestService({ NODE_ENV: 'production', DEVELOPER_PAGES: 'true' });

  it('are 404 by default (and Sandbox is not served)', async () => {
    for (const path of ['/', ...PAGES, ...ASSETS]) {
      const response = await fetch(off.url + path, { headers: html });
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
    const sandbox = await fetch(off.url + '/graphql', { headers: html });
    expect(await sandbox.text()).not.toContain('embeddable-sandbox');
    // The rest of what is public stays public.
    for (const path of ['/version', '/healthz', '/api/v1/openapi.json']) expect((await fetch(off.url + path)).status, path).toBe(200);
  });

  it('hint at what to send on a plain GET /graphql, naming no page that is not served (issue 25, F11)', async () => {
    const response = await fetch(off.url + '/graphql', { headers: { authorization: `Bearer ${await off.token({ sub: 'curl-user' })}` } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: Array<{ message: string }> }).errors[0].message).toBe(
      'Send a GraphQL operation: POST /graphql with a JSON body {"query": "{ viewer { sub } }"} and Authorization: Bearer <token>.',
    );
  });

  it('are served with DEVELOPER_PAGES=true', async () => {
    for (const path of ['/', ...PAGES, ...ASSETS]) expect((await fetch(on.url + path, { headers: html })).status, path).toBe(200);
    expect(await (await fetch(on.url + '/graphql', { headers: html })).text()).toContain('embeddable-sandbox');
  });
});
