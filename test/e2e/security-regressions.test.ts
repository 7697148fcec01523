import { createConnection } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request, type TestResponse } from '../support/http.js';
import { JWT_AUDIENCE, JWT_ISSUER, JWT_SECRET, createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * One regression test per finding of the security review (shared/reviews/security-review.md),
 * over HTTP against the real service and PostgreSQL: the findings about time, the host, tokens
 * and logs. The findings the operation core answers: test/in-process/security-regressions. The
 * numbers in the test names are the review's.
 */
describe('security review findings', () => {
  const logLines: string[] = [];
  const service = useTestService(
    { RATE_LIMIT_REQUESTS_PER_MINUTE: '0' },
    { logger: createLogger('info', { destination: { write: (line: string) => void logLines.push(line) } }) },
  );
  let token: string;
  let organizationId: string;
  const accessLine = (response: TestResponse) =>
    logLines
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === 'request completed' && line.req?.id === response.headers.get('x-request-id'));

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  /**
   * Sends `send()` while /healthz is asked every 20 ms: the request must be refused with 400 in
   * under 100 ms of server time (its access line, best of three), and /healthz must never wait.
   */
  async function refusedFastWhileHealthy(send: () => Promise<TestResponse>) {
    const serverTimes: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const health: number[] = [];
      let done = false;
      const probe = (async () => {
        while (!done) {
          const started = performance.now();
          expect((await request(service.url, 'GET', '/healthz')).status).toBe(200);
          health.push(performance.now() - started);
          await sleep(20);
        }
      })();
      const response = await send();
      done = true;
      await probe;
      expect(response.status).toBe(400);
      serverTimes.push(accessLine(response).responseTime);
      expect(Math.max(...health)).toBeLessThan(1000);
    }
    expect(Math.min(...serverTimes)).toBeLessThan(100);
  }

  describe('1. GraphQL cost limit', () => {
    // The exact query of the report: a heavy selection plus ~50 tokens of nested fragment spreads.
    const pad = `fragment P1 on Query { ${'...P2 '.repeat(10)} } fragment P2 on Query { ${'...P3 '.repeat(10)} }
fragment P3 on Query { ${'...P4 '.repeat(10)} } fragment P4 on Query { ${'__typename '.repeat(10)} }`;
    const heavy = (id: string) => `organization(id: "${id}") { children(first: 100) { edges { node { policies(first: 100) {
  edges { node { charges { id type periodStart periodEnd dueDate amount currency status } } } } } } } }`;

    it('refuses the padded-fragment query with 400 in under 100 ms while /healthz keeps answering', async () => {
      const query = `query { ${heavy(organizationId)} ...P1 } ${pad}`;
      await refusedFastWhileHealthy(() => graphql(service.url, query, {}, token));
      const response = await graphql(service.url, query, {}, token);
      expect(response.body.errors[0]).toMatchObject({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
      expect(response.body.data).toBeUndefined();
    });
  });

  describe('2. input checks are linear in the body', () => {
    const emptyOwners = { legalName: 'd', legalType: 'l', taxId: 't', owners: Array(16000).fill({}) };

    it('refuses 48 KB of empty owners with 400 in under 100 ms (REST) while /healthz keeps answering', async () => {
      expect(JSON.stringify(emptyOwners).length).toBeGreaterThan(48_000);
      await refusedFastWhileHealthy(() => request(service.url, 'POST', '/api/v1/organization', { token, body: emptyOwners }));
      const response = await request(service.url, 'POST', '/api/v1/organization', { token, body: emptyOwners });
      expect(response.body.errors).toEqual([{ path: 'owners', message: 'must have at most 25 items' }]);
    });

    it('refuses them the same way as GraphQL variables', async () => {
      const mutation = 'mutation ($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }';
      await refusedFastWhileHealthy(() => graphql(service.url, mutation, { input: emptyOwners }, token));
      const response = await graphql(service.url, mutation, { input: emptyOwners }, token);
      expect(response.body.errors[0].extensions).toEqual({
        code: 'BAD_USER_INPUT',
        errors: [{ path: 'owners', message: 'must have at most 25 items' }],
      });
    });
  });

  describe('6. low findings', () => {
    it('answers 404, not 500, to malformed percent-encoding in a path, with or without a token', async () => {
      for (const path of ['/api/v1/policy/%', '/api/v1/organization/%E0%A4%A']) {
        expect((await request(service.url, 'GET', path)).status).toBe(404);
        expect((await request(service.url, 'GET', path, { token })).status).toBe(404);
      }
      expect(logLines.some((line) => line.includes('URIError'))).toBe(false);
    });

    it('refuses a sub with a lone surrogate instead of letting it collide with another', async () => {
      const secret = new TextEncoder().encode(JWT_SECRET);
      const forge = (sub: string) =>
        new SignJWT({})
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(sub)
          .setIssuer(JWT_ISSUER)
          .setAudience(JWT_AUDIENCE)
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(secret);
      const response = await request(service.url, 'GET', '/api/v1/policy/1', { token: await forge('victim\ud800') });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/invalid_token/);
    });

    it('writes the path without its query string to the access log', async () => {
      const response = await request(
        service.url,
        'GET',
        `/api/v1/organization/${organizationId}?access_token=SECRET-IN-QUERY&variables=cvc`,
        { token },
      );
      // Parameters the route does not take (contract section 18): refused by name, their values never repeated.
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual(['access_token', 'variables']);
      expect(response.text).not.toContain('SECRET-IN-QUERY');
      expect(accessLine(response).req.url).toBe(`/api/v1/organization/${organizationId}`);
      expect(logLines.join('')).not.toContain('SECRET-IN-QUERY');
    });

    it('refuses tokens that live longer than 24 hours or were issued in the future', async () => {
      const secret = new TextEncoder().encode(JWT_SECRET);
      const now = Math.floor(Date.now() / 1000);
      const mint = (iat: number | undefined, exp: number) => {
        const jwt = new SignJWT({})
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject('alice')
          .setIssuer(JWT_ISSUER)
          .setAudience(JWT_AUDIENCE)
          .setExpirationTime(exp);
        if (iat !== undefined) jwt.setIssuedAt(iat);
        return jwt.sign(secret);
      };
      const century = await request(service.url, 'GET', '/api/v1/policy/1', { token: await mint(now, now + 100 * 365 * 86400) });
      expect(century.status).toBe(401);
      expect(century.headers.get('www-authenticate')).toMatch(/lives longer than 86400 seconds/);
      expect((await request(service.url, 'GET', '/api/v1/policy/1', { token: await mint(undefined, now + 2 * 86400) })).status).toBe(401);
      const future = await request(service.url, 'GET', '/api/v1/policy/1', { token: await mint(now + 600, now + 3600) });
      expect(future.status).toBe(401);
      expect(future.headers.get('www-authenticate')).toMatch(/issued in the future/);
      expect((await request(service.url, 'GET', '/api/v1/policy/987654321', { token: await mint(now, now + 86400) })).status).toBe(404);
    });

    it('never shows more than half of a short account number, and refuses a tax id too short to mask', async () => {
      const created = await request(service.url, 'POST', '/api/v1/organization', {
        token,
        body: organizationBody({
          bankAccounts: [{ routing: '1100', account: '9876' }],
          owners: [{ firstname: 'A', lastname: 'B', taxId: '12345' }],
        }),
      });
      expect(created.status).toBe(200);
      expect(created.body.bankAccounts[0].accountLast4).toBe('76');
      expect(created.body.owners[0].taxIdLast4).toBe('45');
      const short = await request(service.url, 'POST', '/api/v1/organization', {
        token,
        body: organizationBody({ owners: [{ firstname: 'A', lastname: 'B', taxId: '123' }] }),
      });
      expect(short.status).toBe(400);
      expect(short.body.errors).toEqual([
        { path: 'owners[0].taxId', message: expect.stringMatching(/^must be 4 to 40 letters or digits/) },
      ]);
    });

    it('answers 401 before reading the body of a POST without a valid token', async () => {
      const cases: Array<[string, Record<string, string>, string]> = [
        ['/api/v1/policy', { 'content-type': 'application/json' }, '{not json'],
        ['/api/v1/policy', { 'content-type': 'text/plain' }, 'hello'],
        ['/api/v1/organization', { 'content-type': 'application/json' }, 'x'.repeat(200_000)],
        ['/graphql', { 'content-type': 'application/json', authorization: 'Bearer not-a-token' }, '{not json'],
      ];
      for (const [path, headers, body] of cases) {
        const response = await fetch(new URL(path, service.url), { method: 'POST', headers, body });
        expect(response.status, path).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    });

    it('accepts a policy in year 9998 with its whole schedule', async () => {
      const response = await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ effectiveDate: '9995-01-31', expirationDate: '9999-12-31' }),
      });
      expect(response.status).toBe(200);
      expect(response.body.charges).toHaveLength(59);
      expect(response.body.charges.at(-1)).toMatchObject({ periodStart: '9999-11-30', periodEnd: '9999-12-31' });
      const tooLong = await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ effectiveDate: '9994-01-31', expirationDate: '9999-12-31' }),
      });
      expect(tooLong.body.errors).toEqual([{ path: 'expirationDate', message: 'must be at most 5 years after effectiveDate' }]);
    });

    it('tells a JSON scalar body that it must be an object, not that it is not JSON', async () => {
      for (const body of ['"text"', '42', 'null', 'true']) {
        const response = await request(service.url, 'POST', '/api/v1/policy', { token, body });
        expect(response.status).toBe(400);
        expect(response.body.detail).toBe('The request body must be a JSON object.');
      }
    });
  });

  describe('13. hardening notes', () => {
    it('marks answers no-store and nosniff', async () => {
      const response = await request(service.url, 'GET', `/api/v1/organization/${organizationId}`, { token });
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('refuses two Authorization headers', async () => {
      const response = await new Promise<string>((resolve, reject) => {
        const { port } = new URL(service.url);
        const socket = createConnection(Number(port), '127.0.0.1', () =>
          socket.write(
            `GET /api/v1/organization/${organizationId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nAuthorization: Bearer other\r\nConnection: close\r\n\r\n`,
          ),
        );
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(response).toMatch(/^HTTP\/1.1 401/);
      expect(response).toMatch(/send a single Authorization header/);
    });

    it('refuses UTF-16 bodies with 415', async () => {
      const response = await fetch(new URL('/api/v1/organization', service.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-16' },
        body: Buffer.from(JSON.stringify(organizationBody()), 'utf16le'),
      });
      expect(response.status).toBe(415);
    });

    it('has no automatic persisted queries', async () => {
      const response = await request(service.url, 'POST', '/graphql', {
        token,
        body: {
          extensions: { persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' } },
        },
      });
      // Apollo's APQ protocol answers this with 200, so that a client falls back to sending the query.
      expect(response.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
      expect(response.body.data).toBeUndefined();
    });
  });
});
