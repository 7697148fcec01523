import { serverAudits } from 'graphql-http';
import { beforeAll, describe, it } from 'vitest';
import { useTestService } from '../support/test-service.js';

/**
 * GraphQL-over-HTTP conformance: graphql-http's server audits against the real server. Every
 * MUST audit has to pass; SHOULD and MAY audits run too and are reported, not enforced.
 * The audits speak for a client with a valid token: every operation here needs one.
 */
describe('GraphQL over HTTP (graphql-http audits)', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'auditor' });
  });

  const audits = serverAudits({
    url: () => `${service.url}/graphql`,
    fetchFn: (input: string | URL | Request, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(input, { ...init, headers });
    },
  });

  for (const audit of audits) {
    const mandatory = audit.name.startsWith('MUST');
    it(`${audit.id} ${audit.name}`, async () => {
      const result = await audit.fn();
      if (result.status !== 'ok' && mandatory) {
        throw new Error(`${result.reason}\n${JSON.stringify(await result.response.text?.()).slice(0, 500)}`);
      }
    });
  }
});
