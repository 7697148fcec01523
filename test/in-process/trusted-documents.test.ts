import { beforeAll, describe, expect, it } from 'vitest';
import { CreatePolicyDocument, PolicyDocument } from '../generated/graphql.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService, type InProcessService } from '../support/in-process.js';
import { CODEGEN_MANIFEST, asText, idOf, manifest } from '../support/trusted-documents.js';

/**
 * Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS) through the operation core: a document named by
 * id runs prepared and must answer each refusal and field error exactly as the same text through
 * Apollo Server; the method and CSRF rules; unknown ids; replays; GRAPHQL_TRUSTED_DOCUMENTS_ONLY;
 * no manifest. Over HTTP, with Apollo Client's link: test/e2e/trusted-documents.
 */
const post = (service: InProcessService, body: unknown, token?: string, headers: Record<string, string> = {}) =>
  service.request('POST', '/graphql', { token, body, headers });

describe('trusted documents from GraphQL Code Generator', () => {
  const service = useInProcessService({ GRAPHQL_TRUSTED_DOCUMENTS: CODEGEN_MANIFEST });
  let token: string;
  let organizationId: string;
  let number: number;

  beforeAll(async () => {
    const alice = await service.token({ sub: 'alice' });
    organizationId = (await service.request('POST', '/api/v1/organization', { token: alice, body: organizationBody() })).body.id;
    token = await service.token({ sub: 'alice', org: organizationId });
    number = (await service.request('POST', '/api/v1/policy', { token, body: policyBody({ organizationId }) })).body.number;
  });

  it('runs a trusted query sent as text by GET, and applies the method and CSRF rules Apollo applies to text', async () => {
    const get = (
      document: unknown,
      variables: unknown,
      headers: Record<string, string> = { 'apollo-require-preflight': 'true' },
      text = manifest[idOf(document)],
    ) =>
      service.request('GET', `/graphql?query=${encodeURIComponent(text)}&variables=${encodeURIComponent(JSON.stringify(variables))}`, {
        token,
        headers,
      });
    const query = await get(PolicyDocument, { number });
    expect(query.status, query.text).toBe(200);
    expect(query.text).toBe((await get(PolicyDocument, { number }, undefined, asText(PolicyDocument))).text);
    // No preflight header and no content type: what a cross-site <img> or link sends.
    for (const text of [manifest[idOf(PolicyDocument)], asText(PolicyDocument)]) {
      const forged = await get(PolicyDocument, { number }, {}, text);
      expect(forged.status, forged.text).toBe(400);
      expect(forged.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      expect(forged.body.errors[0].message).toContain('Cross-Site Request Forgery');
    }
    // A mutation by GET: refused as Apollo refuses it for text (400 BAD_REQUEST), and nothing is written.
    const before = await service.sql<{ n: number }>('select count(*)::int as n from policy');
    const [trusted, text] = await Promise.all(
      [manifest[idOf(CreatePolicyDocument)], asText(CreatePolicyDocument)].map((sent) =>
        get(CreatePolicyDocument, { input: policyBody({ organizationId }) }, undefined, sent),
      ),
    );
    expect(trusted.status, trusted.text).toBe(400);
    expect(trusted.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(trusted.text).toBe(text.text);
    expect(await service.sql('select count(*)::int as n from policy')).toEqual(before);
  });

  it('answers each refusal and field error exactly as Apollo answers the same document', async () => {
    const other = await service.token({ sub: 'mallory' });
    const cases: Array<{ variables: Record<string, unknown>; token?: string; accept?: string; status: number; code: string }> = [
      { variables: { number: 987654321 }, token, status: 200, code: 'NOT_FOUND' },
      { variables: { number }, token: other, status: 200, code: 'NOT_FOUND' },
      { variables: { number: 'twelve' }, token, status: 400, code: 'BAD_USER_INPUT' },
      { variables: { number: 'twelve' }, token, accept: 'application/json', status: 200, code: 'BAD_USER_INPUT' },
      { variables: {}, token, status: 400, code: 'BAD_USER_INPUT' },
      { variables: { number }, status: 401, code: 'UNAUTHENTICATED' },
    ];
    for (const { variables, token: caller, accept, status, code } of cases) {
      const headers: Record<string, string> = accept ? { accept } : {};
      const byId = await post(service, { documentId: idOf(PolicyDocument), variables }, caller, headers);
      const byText = await post(service, { query: asText(PolicyDocument), variables }, caller, headers);
      expect({ status: byId.status, code: byId.body.errors?.[0]?.extensions.code }).toEqual({ status, code });
      expect(byId.text).toBe(byText.text);
      expect(byId.headers.get('www-authenticate')).toBe(byText.headers.get('www-authenticate'));
    }
  });

  it('refuses an unknown id (PERSISTED_QUERY_NOT_FOUND) and an id sent by GET, running nothing', async () => {
    const unknown = await post(service, { documentId: 'sha256:0000' }, token);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })] });
    const get = await service.request('GET', `/graphql?documentId=${encodeURIComponent(idOf(PolicyDocument))}`, {
      token,
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(400);
    expect(get.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('creates once per Idempotency-Key through a trusted mutation, and replays the answer', async () => {
    const input = policyBody({ organizationId, petName: 'Trusted' });
    const headers = { 'idempotency-key': `trusted-${Date.now()}` };
    const first = await post(service, { documentId: idOf(CreatePolicyDocument), variables: { input } }, token, headers);
    const second = await post(service, { documentId: idOf(CreatePolicyDocument), variables: { input } }, token, headers);
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const rows = await service.sql('select count(*)::int as count from policy where pet_name = $1', ['Trusted']);
    expect(rows[0].count).toBe(1);
  });
});

describe('GRAPHQL_TRUSTED_DOCUMENTS_ONLY', () => {
  const service = useInProcessService({ GRAPHQL_TRUSTED_DOCUMENTS: CODEGEN_MANIFEST, GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'true' });

  it('refuses any document that is not in the manifest, by POST or GET, before it runs', async () => {
    const token = await service.token({ sub: 'alice' });
    const viewer = await post(service, { query: '{ viewer { sub } }' }, token);
    expect(viewer.status).toBe(400);
    expect(viewer.body).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' } })] });
    const mutation = await post(service, { query: asText(CreatePolicyDocument), variables: { input: policyBody() } }, token);
    expect(mutation.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    const get = await service.request('GET', '/graphql?query=%7Bviewer%7Bsub%7D%7D', {
      token,
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(get.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
  });

  it('runs the manifest’s documents, by id or by their exact text', async () => {
    const token = await service.token({ sub: 'alice' });
    const byId = await post(service, { documentId: idOf(PolicyDocument), variables: { number: 1 } }, token);
    expect(byId.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const byText = await post(service, { query: manifest[idOf(PolicyDocument)], variables: { number: 1 } }, token);
    expect(byText.text).toBe(byId.text);
  });
});

describe('without a manifest', () => {
  const service = useInProcessService();

  it('refuses a document id as unsupported', async () => {
    const response = await post(service, { documentId: idOf(PolicyDocument) }, await service.token({ sub: 'alice' }));
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
  });
});
