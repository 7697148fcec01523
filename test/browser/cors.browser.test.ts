import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestService } from '../support/test-service.js';
import { describeUnless, missing } from '../support/programs.js';
import { launchChromium } from './chromium.js';

/**
 * CORS in a real browser (spec section 9): a page served on another origin calls the service
 * with fetch, as a frontend would, and reads `X-Request-Id`; a page on an origin that is not
 * allowed is stopped by the browser itself.
 */

/** A page that calls the service from its own origin and leaves what it saw in `window.result`. */
function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>frontend</title><script>
      const params = new URLSearchParams(location.search);
      const api = params.get('api');
      const token = params.get('token');
      (async () => {
        try {
          const graphql = await fetch(api + '/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
            body: JSON.stringify({ query: '{ viewer { sub } }' }),
          });
          const rest = await fetch(api + '/api/v1/organization/' + crypto.randomUUID(), { headers: { authorization: 'Bearer ' + token } });
          window.result = {
            graphql: { status: graphql.status, requestId: graphql.headers.get('x-request-id'), body: await graphql.json() },
            rest: { status: rest.status, requestId: rest.headers.get('x-request-id'), code: (await rest.json()).code,
                    rateLimit: rest.headers.get('ratelimit') },
          };
        } catch (error) {
          window.result = { error: String(error) };
        }
      })();
    </script>`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://localhost:${(server.address() as AddressInfo).port}` })),
  );
}

describeUnless(missing('chromium'), 'pages on other origins, in headless Chromium', () => {
  let browser: Browser;
  let allowed: { server: Server; origin: string };
  let other: { server: Server; origin: string };
  // Read by the service's start-up, which runs after the hook below has set it.
  const env: Record<string, string> = {};

  beforeAll(async () => {
    browser = await launchChromium();
    allowed = await pageServer();
    other = await pageServer();
    env.CORS_ORIGINS = allowed.origin;
  });
  const service = useTestService(env);
  afterAll(async () => {
    await browser?.close();
    allowed?.server.close();
    other?.server.close();
  });

  const visit = async (origin: string) => {
    const tab = await browser.newPage();
    try {
      const token = await service.token({ sub: 'browser-user' });
      await tab.goto(`${origin}/?api=${encodeURIComponent(service.url)}&token=${token}`);
      await tab.waitForFunction(() => (globalThis as unknown as { result?: unknown }).result !== undefined);
      return await tab.evaluate(() => (globalThis as unknown as { result: any }).result);
    } finally {
      await tab.close();
    }
  };

  it('an allowed origin calls GraphQL and REST and reads X-Request-Id and RateLimit', async () => {
    const result = await visit(allowed.origin);
    expect(result.error).toBeUndefined();
    expect(result.graphql).toMatchObject({ status: 200, body: { data: { viewer: { sub: 'browser-user' } } } });
    expect(result.graphql.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.rest).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(result.rest.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.rest.rateLimit).toMatch(/"requests";r=\d+/);
  });

  it('another origin is stopped by the browser', async () => {
    const result = await visit(other.origin);
    expect(result.error).toMatch(/Failed to fetch/);
  });
});
