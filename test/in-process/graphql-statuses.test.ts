import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';

/**
 * One HTTP status per error code on /graphql, whichever check found it (docs/spec.md section 6,
 * "GraphQL over HTTP"): the same request under `application/graphql-response+json` (as Apollo
 * Client 4 and graphql-http send it) and under `application/json` (also for any media type, as curl
 * and Apollo Client 3 send it). In process: the operation core's answers; test/e2e/graphql-statuses
 * proves them over HTTP, with what only the host answers.
 */
const MODERN = 'application/graphql-response+json, application/json;q=0.9';
const LEGACY = 'application/json';

describe('GraphQL statuses by error code', () => {
  const service = useInProcessService();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'statuses' });
    const root = await service.request('POST', '/api/v1/organization', { token, body: organizationBody() });
    organizationId = root.body.id;
  });

  const send = (accept: string, body: unknown) => service.request('POST', '/graphql', { token, body, headers: { accept } });
  const create = `mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) { number } }`;

  /** A BAD_USER_INPUT found at each place a rule is checked. */
  const badUserInput: Array<[string, () => { query: string; variables?: unknown }, string]> = [
    [
      'variables, before execution',
      () => ({ query: create, variables: { input: policyBody({ organizationId, petName: '' }) } }),
      'petName',
    ],
    [
      'unknown coverage plan, in the resolver',
      () => ({ query: create, variables: { input: policyBody({ organizationId, coverageSlug: 'gold' }) } }),
      'coverageSlug',
    ],
    ['no organization and no org claim, in the resolver', () => ({ query: create, variables: { input: policyBody() } }), 'organizationId'],
    [
      'page size, in the resolver',
      () => ({ query: `{ organization(id: "${organizationId}") { children(first: 0) { edges { cursor } } } }` }),
      'first',
    ],
    ['cursor, in the resolver', () => ({ query: `{ viewer { organizations(after: "bad") { edges { cursor } } } }` }), 'after'],
  ];

  for (const [where, body, path] of badUserInput) {
    it(`BAD_USER_INPUT (${where}): 400 under graphql-response+json, 200 under json, no data either way`, async () => {
      for (const [accept, status, type] of [
        [MODERN, 400, 'application/graphql-response+json'],
        [LEGACY, 200, 'application/json'],
        ['*/*', 200, 'application/json'],
      ] as const) {
        const response = await send(accept, body());
        expect(response.status, `${accept}`).toBe(status);
        expect(response.headers.get('content-type')).toMatch(new RegExp(`^${type.replace('+', '\\+')}`));
        expect(response.body.data, `${accept}`).toBeUndefined();
        expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        expect(response.body.errors[0].extensions.errors.map((error: { path: string }) => error.path)).toContain(path);
      }
    });
  }

  it('a document that does not validate: 400 / 200, no data', async () => {
    for (const [accept, status] of [
      [MODERN, 400],
      [LEGACY, 200],
    ] as const) {
      const response = await send(accept, { query: '{ nope }' });
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })] });
    }
  });

  it('NOT_FOUND is a field error: 200 with the rest of data, under both', async () => {
    for (const accept of [MODERN, LEGACY]) {
      const response = await send(accept, { query: `{ organization(id: "${crypto.randomUUID()}") { id } viewer { sub } }` });
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({ organization: null, viewer: { sub: 'statuses' } });
      expect(response.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
  });

  it('CONFLICT from the resolver (a policy number in use): 409 and no data, under both, as on REST', async () => {
    const number = 880_000_000 + Math.floor(Math.random() * 1000);
    const first = await send(MODERN, { query: create, variables: { input: policyBody({ organizationId, number }) } });
    expect(first.status).toBe(200);
    for (const accept of [MODERN, LEGACY]) {
      const response = await send(accept, { query: create, variables: { input: policyBody({ organizationId, number }) } });
      expect(response.status).toBe(409);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors[0].extensions.code).toBe('CONFLICT');
    }
  });

  it('UNAUTHENTICATED: 401 under both', async () => {
    for (const accept of [MODERN, LEGACY]) {
      const response = await service.request('POST', '/graphql', {
        token: 'nope',
        body: { query: '{ viewer { sub } }' },
        headers: { accept },
      });
      expect(response.status).toBe(401);
      expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  it('a mutation runs one create: two in one request are refused before either runs', async () => {
    const two = `mutation ($input: CreatePolicyInput!) { a: createPolicy(input: $input) { number } b: createPolicy(input: $input) { number } }`;
    const before = await service.sql<{ count: string }>('select count(*) from policy where organization_id = $1', [organizationId]);
    const response = await send(MODERN, { query: two, variables: { input: policyBody({ organizationId }) } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/one create field/),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    const after = await service.sql<{ count: string }>('select count(*) from policy where organization_id = $1', [organizationId]);
    expect(after).toEqual(before);
    const typename = await send(MODERN, {
      query: create.replace('{ number }', '{ number } __typename'),
      variables: { input: policyBody({ organizationId }) },
    });
    expect(typename.status).toBe(200);
  });
});
