import { describe, expect, it } from 'vitest';
import { useTestService } from '../support/test-service.js';

/** CORS, spec section 9: what a browser on another origin needs, and nothing for other origins. */
const APP = 'http://localhost:5173';
const ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'if-match', 'x-request-id', 'apollo-require-preflight'];
const EXPOSED = ['x-request-id', 'etag', 'idempotent-replayed', 'retry-after', 'www-authenticate', 'ratelimit', 'ratelimit-policy'];

const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

function preflight(url: string, path: string, origin: string, method = 'POST') {
  return fetch(new URL(path, url), {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type' },
  });
}

describe('CORS outside production (any local origin by default)', () => {
  const service = useTestService();

  it.each(['/api/v1/organization', '/api/v1/policy/1', '/graphql', '/healthz', '/readyz', '/version', '/api/v1/openapi.json'])(
    'answers a preflight to %s with 204, the origin, methods, headers, max age and Vary, without a token',
    async (path) => {
      const response = await preflight(service.url, path, APP, path === '/api/v1/organization' ? 'POST' : 'GET');
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(APP);
      expect(list(response.headers.get('access-control-allow-methods'))).toEqual(expect.arrayContaining(['get', 'post', 'patch']));
      expect(list(response.headers.get('access-control-allow-headers'))).toEqual(expect.arrayContaining(ALLOWED_HEADERS));
      expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(list(response.headers.get('vary'))).toContain('origin');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    },
  );

  it('puts the origin, Vary and the exposed headers on actual answers, errors included', async () => {
    const token = await service.token({ sub: 'cors-user' });
    const answers = [
      await fetch(new URL('/healthz', service.url), { headers: { origin: APP } }),
      await fetch(new URL('/api/v1/policy/999999', service.url), { headers: { origin: APP, authorization: `Bearer ${token}` } }),
      await fetch(new URL('/api/v1/policy/1', service.url), { headers: { origin: APP } }),
      await fetch(new URL('/graphql', service.url), {
        method: 'POST',
        headers: { origin: APP, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { sub } }' }),
      }),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 404, 401, 200]);
    for (const response of answers) {
      expect(response.headers.get('access-control-allow-origin')).toBe(APP);
      expect(list(response.headers.get('vary'))).toContain('origin');
      expect(list(response.headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(EXPOSED));
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('accepts 127.0.0.1 on any port too, and sends no Access-Control header to another origin (served as usual)', async () => {
    expect((await preflight(service.url, '/graphql', 'http://127.0.0.1:8080')).headers.get('access-control-allow-origin')).toBe(
      'http://127.0.0.1:8080',
    );
    // IPv6 loopback as IPv4's (issue 25, F16), with or without a port.
    for (const origin of ['http://[::1]:5173', 'http://[::1]']) {
      expect((await preflight(service.url, '/graphql', origin)).headers.get('access-control-allow-origin'), origin).toBe(origin);
    }
    for (const origin of [
      'https://evil.example',
      'http://localhost.evil.example',
      'https://localhost:5173',
      'https://[::1]:5173',
      'http://[::2]:5173',
      'http://[::1].evil.example',
      'null',
    ]) {
      const refused = await preflight(service.url, '/graphql', origin);
      expect(corsHeaders(refused.headers), origin).toEqual([]);
      const served = await fetch(new URL('/healthz', service.url), { headers: { origin } });
      expect(served.status).toBe(200);
      expect(corsHeaders(served.headers), origin).toEqual([]);
    }
  });
});

describe('CORS with CORS_ORIGINS', () => {
  const service = useTestService({ CORS_ORIGINS: 'https://app.example.com, https://admin.example.com:8443' });

  it('allows exactly the listed origins', async () => {
    for (const origin of ['https://app.example.com', 'https://admin.example.com:8443']) {
      const response = await preflight(service.url, '/api/v1/policy', origin);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    }
    for (const origin of [APP, 'https://app.example.com.evil.example', 'http://app.example.com']) {
      expect(corsHeaders((await preflight(service.url, '/api/v1/policy', origin)).headers), origin).toEqual([]);
    }
  });
});

describe('/version and the index', () => {
  const service = useTestService();

  it('answers /version without a token with the package version, the same as the OpenAPI document, and the Node.js running it', async () => {
    const version = (await (await fetch(new URL('/version', service.url))).json()) as { version: string; node: string };
    expect(version.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(version.node).toBe(process.version);
    const openapi = (await (await fetch(new URL('/api/v1/openapi.json', service.url))).json()) as { info: { version: string } };
    expect(openapi.info.version).toBe(version.version);
  });

  it('answers / with links to what is served', async () => {
    const index = (await (await fetch(new URL('/', service.url))).json()) as { links: Record<string, string> };
    expect(index.links).toMatchObject({
      graphql: '/graphql',
      openapi: '/api/v1/openapi.json',
      healthz: '/healthz',
      readyz: '/readyz',
      version: '/version',
    });
  });
});
