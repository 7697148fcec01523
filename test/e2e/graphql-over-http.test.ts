import { serverAudits, type Audit } from 'graphql-http';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestService } from '../support/test-service.js';

/**
 * The audits the service fails on purpose, each with its reason. Every other audit, MUST, SHOULD
 * or MAY, has to pass; a deviation has to go on failing for its reason, and to pass once that
 * reason is taken away (so that the list stays true).
 */
const CSRF =
  "a GET with neither a preflighted content type nor an apollo-require-preflight header is refused as a possible cross-site request forgery (Apollo Server's csrfPrevention, docs/spec.md, GraphQL): a browser may send it from any page";
const KNOWN_DEVIATIONS: Record<string, string> = {
  '5A70': CSRF,
  D6D5: CSRF,
  '6A70': CSRF,
};

/**
 * GraphQL-over-HTTP conformance: graphql-http's server audits against the real server. The
 * audits speak for a client with a valid token: every operation here needs one.
 */
describe('GraphQL over HTTP (graphql-http audits)', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    token = await service.token({ sub: 'auditor' });
  });

  const auditsWith = (extraHeaders: Record<string, string>): Audit[] =>
    serverAudits({
      url: () => `${service.url}/graphql`,
      fetchFn: (input: string | URL | Request, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        headers.set('authorization', `Bearer ${token}`);
        for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
        return fetch(input, { ...init, headers });
      },
    });
  const audits = auditsWith({});
  const preflighted = new Map(auditsWith({ 'apollo-require-preflight': 'true' }).map((audit) => [audit.id, audit]));

  it('every known deviation names an audit that exists', () => {
    const ids = audits.map((audit) => audit.id);
    for (const id of Object.keys(KNOWN_DEVIATIONS)) expect(ids).toContain(id);
  });

  for (const audit of audits) {
    const deviation = KNOWN_DEVIATIONS[audit.id];
    if (deviation === undefined) {
      it(`${audit.id} ${audit.name}`, async () => {
        const result = await audit.fn();
        const detail = result.status === 'ok' ? '' : `${result.reason}\n${(await result.response.text()).slice(0, 500)}`;
        expect(result.status, detail).toBe('ok');
      });
    } else {
      it(`${audit.id} ${audit.name}: a known deviation, ${deviation}`, async () => {
        const result = await audit.fn();
        expect(result.status).not.toBe('ok');
        if (result.status === 'ok') return;
        expect(result.response.status).toBe(400);
        expect(await result.response.text()).toContain('Cross-Site Request Forgery');
        // The same request with the header a browser cannot send without a preflight passes.
        const again = await preflighted.get(audit.id)!.fn();
        expect(again.status, again.status === 'ok' ? '' : again.reason).toBe('ok');
      });
    }
  }
});
