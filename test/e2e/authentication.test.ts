import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT, importPKCS8 } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { JWT_AUDIENCE, JWT_ISSUER, JWT_SECRET, useTestService } from '../support/test-service.js';

const secret = new TextEncoder().encode(JWT_SECRET);
const now = () => Math.floor(Date.now() / 1000);

/** A token signed with `key`, with every claim right unless the case says otherwise. */
function signed(claims: Record<string, unknown>, key: Uint8Array = secret) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(key);
}

const good = { sub: 'alice', iss: JWT_ISSUER, aud: JWT_AUDIENCE, exp: now() + 600 };

/** Each way a request can fail authentication: the header to send (undefined = none). */
const CASES: Array<[string, () => Promise<string | undefined>]> = [
  ['no token', async () => undefined],
  ['a garbage token', async () => 'Bearer not.a.jwt'],
  ['a bad signature', async () => `Bearer ${await signed(good, new TextEncoder().encode('another-secret-that-is-also-32-bytes!!'))}`],
  ['an expired token', async () => `Bearer ${await signed({ ...good, exp: now() - 60 })}`],
  ['a wrong issuer', async () => `Bearer ${await signed({ ...good, iss: 'https://evil.test' })}`],
  ['a wrong audience', async () => `Bearer ${await signed({ ...good, aud: 'someone-else' })}`],
  ['alg none', async () => `Bearer ${new UnsecuredJWT({ ...good }).encode()}`],
  ['no exp', async () => `Bearer ${await signed({ sub: 'alice', iss: JWT_ISSUER, aud: JWT_AUDIENCE })}`],
  ['no sub', async () => `Bearer ${await signed({ iss: JWT_ISSUER, aud: JWT_AUDIENCE, exp: now() + 600 })}`],
  ['another scheme', async () => `Basic ${Buffer.from('alice:pw').toString('base64')}`],
  ['an org claim that is not an id', async () => `Bearer ${await signed({ ...good, org: "x' or '1'='1" })}`],
];

describe('authentication', () => {
  const service = useTestService();
  let organizationId: string;

  beforeAll(async () => {
    const token = await service.token({ sub: 'alice' });
    const created = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    organizationId = created.body.id;
    await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId, number: 7 }) });
  });

  const routes = () =>
    [
      ['POST', '/api/v1/organization', organizationBody()],
      ['GET', `/api/v1/organization/${organizationId}`, undefined],
      ['POST', '/api/v1/policy', policyBody({ organizationId })],
      ['GET', '/api/v1/policy/7', undefined],
    ] as const;

  describe.each(CASES)('with %s', (name, header) => {
    it('REST answers 401 problem+json with a Bearer challenge on all four routes', async () => {
      const authorization = await header();
      for (const [method, path, body] of routes()) {
        const response = await request(service.url, method, path, {
          body,
          headers: authorization ? { authorization } : {},
        });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(response.body).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', title: 'Unauthorized' });
        const challenge = response.headers.get('www-authenticate');
        expect(challenge).toMatch(/^Bearer realm="org-policy-service"/);
        if (name === 'no token') expect(challenge).not.toContain('error=');
        else expect(challenge).toContain('error="invalid_token"');
      }
      // Nothing was written by the refused POSTs.
      const [{ count }] = await service.sql<{ count: string }>('select count(*) from organization');
      expect(Number(count)).toBe(1);
    });

    it('GraphQL answers HTTP 401 with UNAUTHENTICATED', async () => {
      const authorization = await header();
      for (const query of [
        '{ viewer { sub } }',
        `{ organization(id: "${organizationId}") { id } }`,
        '{ policy(number: 7) { number } }',
        'mutation { createPolicy(input: { ownerFirstname: "a", ownerLastname: "b", petName: "c", effectiveDate: "2026-01-01", expirationDate: "2026-02-01", coverageSlug: "accident-only" }) { number } }',
      ]) {
        const response = await request(service.url, 'POST', '/graphql', {
          body: { query },
          headers: authorization ? { authorization } : {},
        });
        expect(response.status, query).toBe(401);
        expect(response.body.data ?? null).toBeNull();
        expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
    });
  });

  it('answers a refused token on /graphql/ and /GraphQL (which Express routes to /graphql) as GraphQL, not problem+json', async () => {
    for (const path of ['/graphql/', '/GraphQL', '/graphql?x=1']) {
      const response = await request(service.url, 'POST', path, {
        body: { query: '{ viewer { sub } }' },
        headers: { authorization: 'Bearer abc' },
      });
      expect(response.status, path).toBe(401);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/(graphql-response\+)?json/);
      expect(response.body.errors[0].extensions.code, path).toBe('UNAUTHENTICATED');
    }
  });

  it('accepts a valid token on every route', async () => {
    const token = await service.token({ sub: 'alice' });
    for (const [method, path, body] of routes()) {
      const response = await request(service.url, method, path, { token, body });
      expect(response.status, `${method} ${path}`).toBe(200);
    }
  });

  it('lets an introspection-only query through without a token outside production (Apollo Sandbox)', async () => {
    const response = await graphql(service.url, '{ __schema { queryType { name } } }');
    expect(response.status).toBe(200);
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('authentication with a public key', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const service = useTestService({ JWT_SECRET: '', JWT_PUBLIC_KEY: publicPem, JWT_ISSUER: '', JWT_AUDIENCE: '' });

  it('accepts ES256 tokens signed by the matching private key', async () => {
    const key = await importPKCS8(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'ES256');
    const token = await new SignJWT({ sub: 'erin' }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('5m').sign(key);
    const response = await graphql(service.url, '{ viewer { sub } }', {}, token);
    expect(response.body.data.viewer.sub).toBe('erin');
  });

  it('refuses an HS256 token whose secret is the public key (algorithm confusion)', async () => {
    const token = await new SignJWT({ sub: 'mallory' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(publicPem));
    const response = await request(service.url, 'GET', '/api/v1/policy/1', { token });
    expect(response.status).toBe(401);
  });

  it('refuses a token signed by another key', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const key = await importPKCS8(other.export({ type: 'pkcs8', format: 'pem' }).toString(), 'ES256');
    const token = await new SignJWT({ sub: 'mallory' }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('5m').sign(key);
    const response = await request(service.url, 'GET', '/api/v1/policy/1', { token });
    expect(response.status).toBe(401);
  });
});
