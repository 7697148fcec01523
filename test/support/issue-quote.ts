import { expect } from 'vitest';
import { CREATE_POLICY } from '../../src/rest/operations.js';
import { policyBody } from './fixtures.js';
import type { Client, TestResponse } from './http.js';
import type { TestService } from './test-service.js';

/**
 * Issuing a quote (contract section 14: `POST /api/v1/policy` and `createPolicy` with `quoteId`)
 * in tests, on a started service or in process: each case runs on both surfaces, GraphQL answers
 * read as REST's (status from the code).
 */
const STATUS: Record<string, number> = {
  BAD_USER_INPUT: 400,
  NOT_FOUND: 404,
  INVALID_STATE: 409,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
};

export interface IssueAnswer {
  status: number;
  code?: string;
  errors?: Array<{ path: string; message: string }>;
  policy?: Record<string, any>;
  replayed: boolean;
}

export type Issue = (body: Record<string, unknown>, options?: { as?: string; key?: string }) => Promise<IssueAnswer>;

/** Quotes of the caller of `token()` on `service`, what a test reads of them, and their issue over each surface. */
export function quoteIssuing(service: Client & Pick<TestService, 'sql'>, token: () => string) {
  const surfaces: Record<'REST' | 'GraphQL', Issue> = {
    REST: async (body, options = {}) => {
      const headers = options.key ? { 'idempotency-key': options.key } : undefined;
      const response: TestResponse = await service.request('POST', '/api/v1/policy', { token: options.as ?? token(), body, headers });
      const replayed = response.headers.get('idempotent-replayed') === 'true';
      if (response.status === 200) return { status: 200, policy: response.body, replayed };
      return { status: response.status, code: response.body.code, errors: response.body.errors, replayed };
    },
    GraphQL: async (body, options = {}) => {
      const headers = options.key ? { 'idempotency-key': options.key } : undefined;
      const response = await service.request('POST', '/graphql', {
        token: options.as ?? token(),
        body: { query: CREATE_POLICY, variables: { input: body } },
        headers,
      });
      const replayed = response.headers.get('idempotent-replayed') === 'true';
      const [error] = response.body.errors ?? [];
      if (!error) return { status: 200, policy: response.body.data.createPolicy, replayed };
      const code = error.extensions.code as string;
      return { status: STATUS[code] ?? 500, code, errors: error.extensions.errors, replayed };
    },
  };
  return {
    surfaces,
    async quote(overrides: Record<string, unknown> = {}) {
      const created = await service.request('POST', '/api/v1/quote', { token: token(), body: policyBody(overrides) });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      return created.body;
    },
    readQuote: async (id: string) => (await service.request('GET', `/api/v1/quote/${id}`, { token: token() })).body,
    policiesOf: (quoteId: string) =>
      service.sql<{ number: string }>('select p.number::text as number from policy p join quote q on q.policy_id = p.id where q.id = $1', [
        quoteId,
      ]),
    policyCount: async () => Number((await service.sql<{ n: string }>('select count(*) as n from policy'))[0].n),
  };
}
