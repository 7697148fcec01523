import { describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * Apollo Sandbox's landing page at `/graphql`, as a browser asks for it: outside production, and
 * not in it. The query limits (contract section 8): test/in-process/graphql-limits.
 */
describe('GraphQL landing page', () => {
  const service = useTestService();

  it('shows the Sandbox landing page to browsers outside production', async () => {
    const response = await request(service.url, 'GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.text).toMatch(/<html/i);
    expect(response.text).toMatch(/sandbox/i);
  });
});

describe('GraphQL in production', () => {
  const service = useTestService({ NODE_ENV: 'production' });

  it('has no landing page', async () => {
    const page = await request(service.url, 'GET', '/graphql', {
      headers: { accept: 'text/html' },
      token: await service.token({ sub: 'alice' }),
    });
    expect(page.text).not.toMatch(/sandbox/i);
  });
});
