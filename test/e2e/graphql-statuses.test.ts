import { beforeAll, describe, expect, it } from 'vitest';
import { policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * One HTTP status per error code on /graphql (docs/spec.md section 6, "GraphQL over HTTP"),
 * over HTTP: what the host answers itself, and one refusal written by the host as the core
 * answered it under each media type. Every code at every check: test/in-process/graphql-statuses.
 */
const MODERN = 'application/graphql-response+json, application/json;q=0.9';
const LEGACY = 'application/json';

describe('GraphQL statuses over HTTP', () => {
  const service = useTestService();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    ({ token, organizationId } = await createRootOrganization(service));
  });

  const send = (accept: string, body: unknown) => request(service.url, 'POST', '/graphql', { token, body, headers: { accept } });

  it('BAD_USER_INPUT: 400 under graphql-response+json, 200 under json, in that media type, no data', async () => {
    const body = {
      query: 'mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) { number } }',
      variables: { input: policyBody({ organizationId, petName: '' }) },
    };
    for (const [accept, status, type] of [
      [MODERN, 400, 'application/graphql-response+json; charset=utf-8'],
      [LEGACY, 200, 'application/json; charset=utf-8'],
    ] as const) {
      const response = await send(accept, body);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  it('a body that is not JSON is not a GraphQL request: 400 BAD_REQUEST under both', async () => {
    for (const accept of [MODERN, LEGACY]) {
      const response = await send(accept, '{"query": ');
      expect(response.status).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    }
  });
});
