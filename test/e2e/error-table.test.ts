import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { expectProblem, graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * The error table of contract section 6, over real HTTP: what the host answers before a route
 * runs, X-Request-Id, and a 500 carrying it. The core's answers: test/in-process/error-table.
 */
describe('errors', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
  });

  it('400 for malformed JSON', async () => {
    expectProblem(await request(service.url, 'POST', '/api/v1/organization', { token, body: '{"legalName": ' }), 400, 'BAD_USER_INPUT');
  });

  it('415 for a POST that is not application/json', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const response = await request(service.url, 'POST', '/api/v1/organization', {
        token,
        body: 'legalName=x',
        headers: { 'content-type': type },
      });
      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('reads a POST with no body at all as {}: a create lists what it needs, a step that needs nothing runs', async () => {
    const response = await request(service.url, 'POST', '/api/v1/organization', { token });
    expectProblem(response, 400, 'BAD_USER_INPUT');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toContain('legalName');
    expect(await service.sql('select id from organization')).toHaveLength(0);
  });

  it('413 for a body over 100 KB, before anything is written', async () => {
    const response = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationBody({ description: 'd'.repeat(110 * 1024) }),
    });
    expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(await service.sql('select id from organization')).toHaveLength(0);
  });

  it('404 problem+json for unknown routes, never an HTML page', async () => {
    for (const path of ['/nope', '/api/v1/nope', '/api/v2/organization', '/api/v1/organization/1/2']) {
      const response = await request(service.url, 'GET', path, { token });
      expectProblem(response, 404, 'NOT_FOUND');
      expect(response.text).not.toMatch(/<html|<pre>/i);
    }
  });

  it('405 with Allow for a known path and another method', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/organization', 'POST, GET, HEAD'],
      ['DELETE', '/api/v1/organization/5f0c6f3e-8a5b-4a43-9df1-3c1c7b5a2f10', 'GET, PATCH, HEAD'],
      ['PUT', '/api/v1/policy', 'POST, GET, HEAD'],
      ['PATCH', '/api/v1/policy/12', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await request(service.url, method, path, { token, body: method === 'GET' ? undefined : {} });
      expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
      expect(response.headers.get('allow')).toBe(allow);
    }
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const given = await request(service.url, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc-123');
    const made = await request(service.url, 'GET', '/healthz', { headers: { 'x-request-id': 'x'.repeat(200) } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('500 carries the request id of X-Request-Id, in REST and GraphQL', async () => {
    const root = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    // Break this test's own database under the service: reading the catalog now fails in SQL.
    await service.sql('alter table coverage_plan rename column monthly_premium to broken_premium');
    try {
      const response = await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ organizationId: root.body.id }),
        headers: { 'x-request-id': 'req-500-check' },
      });
      expectProblem(response, 500, 'INTERNAL_SERVER_ERROR');
      expect(response.body.requestId).toBe('req-500-check');
      const viaGraphql = await graphql(service.url, '{ coverages { slug monthlyPremium } }', {}, token);
      expect(viaGraphql.body.errors[0].extensions).toEqual({
        code: 'INTERNAL_SERVER_ERROR',
        requestId: viaGraphql.headers.get('x-request-id'),
      });
    } finally {
      await service.sql('alter table coverage_plan rename column broken_premium to monthly_premium');
    }
  });
});
