import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { fromGraphQLCodegenPersistedDocuments, generatePersistedQueryManifest } from '@apollo/generate-persisted-query-manifest';
import { generatePersistedQueryIdsFromManifest } from '@apollo/persisted-query-lists';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CreatePolicyDocument, PolicyDocument } from '../generated/graphql.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request, type TestResponse } from '../support/http.js';
import { startTestService, useTestService } from '../support/test-service.js';

/**
 * Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS): the manifest GraphQL Code Generator's client
 * preset writes for test/operations (test/generated/persisted-documents.json), and the one
 * Apollo's generate-persisted-query-manifest makes from it for Apollo Client's persisted-query
 * link. A document named by id runs prepared (graphql-jit) and must answer exactly what the
 * same document sent as text answers through Apollo Server.
 */
const CODEGEN_MANIFEST = resolve('test/generated/persisted-documents.json');
const manifest = JSON.parse(readFileSync(CODEGEN_MANIFEST, 'utf8')) as Record<string, string>;
const idOf = (document: unknown) => (document as { __meta__: { hash: string } }).__meta__.hash;
/** The manifest's text plus a comment: no longer the manifest's text, so Apollo Server runs it. */
const asText = (document: unknown) => `${manifest[idOf(document)]}\n# sent as text`;

function post(url: string, body: unknown, token?: string, headers: Record<string, string> = {}): Promise<TestResponse> {
  return request(url, 'POST', '/graphql', { token, body, headers });
}

describe('trusted documents from GraphQL Code Generator', () => {
  const service = useTestService({ GRAPHQL_TRUSTED_DOCUMENTS: CODEGEN_MANIFEST });
  let token: string;
  let organizationId: string;
  let number: number;

  beforeAll(async () => {
    const alice = await service.token({ sub: 'alice' });
    organizationId = (await request(service.url, 'POST', '/api/v1/organization', { token: alice, body: organizationBody() })).body.id;
    token = await service.token({ sub: 'alice', org: organizationId });
    number = (await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId }) })).body.number;
  });

  it('runs a document named by its id, with the same answer as its text through Apollo', async () => {
    const byId = await post(service.url, { documentId: idOf(PolicyDocument), variables: { number } }, token);
    const byText = await post(service.url, { query: asText(PolicyDocument), variables: { number } }, token);
    expect(byId.status).toBe(200);
    expect(byId.body.data.policy).toMatchObject({ number, organization: { id: organizationId } });
    expect(byId.body.data.policy.charges).toHaveLength(12);
    expect(byId.text).toBe(byText.text);
    expect(byId.headers.get('content-type')).toBe(byText.headers.get('content-type'));
    // The caller's budgets are charged as for any operation.
    expect(byId.headers.get('ratelimit-policy')).toContain('"graphql-cost"');
  });

  // Security review 2, L2: a GET with a manifest document's exact text was a 500, and the
  // trusted path ignored the method and Apollo's CSRF rule.
  it('runs a trusted query sent as text by GET, and applies the method and CSRF rules Apollo applies to text', async () => {
    const get = (
      document: unknown,
      variables: unknown,
      headers: Record<string, string> = { 'apollo-require-preflight': 'true' },
      text = manifest[idOf(document)],
    ) =>
      request(service.url, 'GET', `/graphql?query=${encodeURIComponent(text)}&variables=${encodeURIComponent(JSON.stringify(variables))}`, {
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

  it('takes the id with or without its sha256: prefix, and as Apollo’s extensions.persistedQuery', async () => {
    const bare = idOf(PolicyDocument).replace(/^sha256:/, '');
    for (const body of [{ documentId: bare }, { extensions: { persistedQuery: { version: 1, sha256Hash: bare } } }]) {
      const response = await post(service.url, { ...body, variables: { number } }, token);
      expect(response.status).toBe(200);
      expect(response.body.data.policy.number).toBe(number);
    }
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
      const byId = await post(service.url, { documentId: idOf(PolicyDocument), variables }, caller, headers);
      const byText = await post(service.url, { query: asText(PolicyDocument), variables }, caller, headers);
      expect({ status: byId.status, code: byId.body.errors?.[0]?.extensions.code }).toEqual({ status, code });
      expect(byId.text).toBe(byText.text);
      expect(byId.headers.get('www-authenticate')).toBe(byText.headers.get('www-authenticate'));
    }
  });

  it('refuses an unknown id (PERSISTED_QUERY_NOT_FOUND) and an id sent by GET, running nothing', async () => {
    const unknown = await post(service.url, { documentId: 'sha256:0000' }, token);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } })] });
    const get = await request(service.url, 'GET', `/graphql?documentId=${encodeURIComponent(idOf(PolicyDocument))}`, {
      token,
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(get.status).toBe(400);
    expect(get.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  it('creates once per Idempotency-Key through a trusted mutation, and replays the answer', async () => {
    const input = policyBody({ organizationId, petName: 'Trusted' });
    const headers = { 'idempotency-key': `trusted-${Date.now()}` };
    const first = await post(service.url, { documentId: idOf(CreatePolicyDocument), variables: { input } }, token, headers);
    const second = await post(service.url, { documentId: idOf(CreatePolicyDocument), variables: { input } }, token, headers);
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const rows = await service.sql('select count(*)::int as count from policy where pet_name = $1', ['Trusted']);
    expect(rows[0].count).toBe(1);
  });

  it('names the operation on the access line and in the metrics, as for any document', async () => {
    await post(service.url, { documentId: idOf(PolicyDocument), variables: { number } }, token);
    const metrics = (await request(service.url, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/graphql_operations_total\{[^}]*name="Policy"[^}]*type="query"[^}]*\} [1-9]/);
  });
});

describe('GRAPHQL_TRUSTED_DOCUMENTS_ONLY', () => {
  const service = useTestService({ GRAPHQL_TRUSTED_DOCUMENTS: CODEGEN_MANIFEST, GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'true' });

  it('refuses any document that is not in the manifest, by POST or GET, before it runs', async () => {
    const token = await service.token({ sub: 'alice' });
    const viewer = await post(service.url, { query: '{ viewer { sub } }' }, token);
    expect(viewer.status).toBe(400);
    expect(viewer.body).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' } })] });
    const mutation = await post(service.url, { query: asText(CreatePolicyDocument), variables: { input: policyBody() } }, token);
    expect(mutation.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    const get = await request(service.url, 'GET', '/graphql?query=%7Bviewer%7Bsub%7D%7D', {
      token,
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(get.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
  });

  it('runs the manifest’s documents, by id or by their exact text', async () => {
    const token = await service.token({ sub: 'alice' });
    const byId = await post(service.url, { documentId: idOf(PolicyDocument), variables: { number: 1 } }, token);
    expect(byId.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const byText = await post(service.url, { query: manifest[idOf(PolicyDocument)], variables: { number: 1 } }, token);
    expect(byText.text).toBe(byId.text);
  });
});

describe('without a manifest', () => {
  const service = useTestService();

  it('refuses a document id as unsupported', async () => {
    const response = await post(service.url, { documentId: idOf(PolicyDocument) }, await service.token({ sub: 'alice' }));
    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
  });
});

describe('a manifest that cannot run', () => {
  it('stops start-up, naming the variable and the document', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'trusted-'));
    const manifest = join(directory, 'manifest.json');
    await writeFile(manifest, JSON.stringify({ 'sha256:abc': 'query Gone { policy(number: 1) { noSuchField } }' }));
    await expect(startTestService({ GRAPHQL_TRUSTED_DOCUMENTS: manifest })).rejects.toThrow(
      /GRAPHQL_TRUSTED_DOCUMENTS: the document sha256:abc is not valid against the schema: Cannot query field "noSuchField"/,
    );
    await writeFile(manifest, '{"not": 42}');
    await expect(startTestService({ GRAPHQL_TRUSTED_DOCUMENTS: manifest })).rejects.toThrow(
      /GRAPHQL_TRUSTED_DOCUMENTS: .* maps not to something that is not a document's text/,
    );
  });
});

describe('Apollo Client 4 with its persisted-query link', () => {
  let manifestPath: string;
  let service: Awaited<ReturnType<typeof startTestService>>;

  beforeAll(async () => {
    // As a frontend's build does: Apollo's manifest from Code Generator's persisted documents,
    // with the __typename fields Apollo Client's cache adds to every document it sends.
    const manifest = await generatePersistedQueryManifest({ documents: fromGraphQLCodegenPersistedDocuments(CODEGEN_MANIFEST) }, undefined);
    manifestPath = join(await mkdtemp(join(tmpdir(), 'apollo-manifest-')), 'persisted-query-manifest.json');
    await writeFile(manifestPath, JSON.stringify(manifest));
    service = await startTestService({ GRAPHQL_TRUSTED_DOCUMENTS: manifestPath, GRAPHQL_TRUSTED_DOCUMENTS_ONLY: 'true' });
    return () => service.stop();
  });

  it('reads a policy by the document’s id alone, and cannot send any other document', async () => {
    const alice = await service.token({ sub: 'alice' });
    const organizationId = (await request(service.url, 'POST', '/api/v1/organization', { token: alice, body: organizationBody() })).body.id;
    const token = await service.token({ sub: 'alice', org: organizationId });
    const { number } = (await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId }) })).body;
    const sent: Array<Record<string, unknown>> = [];
    const client = new ApolloClient({
      link: new PersistedQueryLink(
        generatePersistedQueryIdsFromManifest({ loadManifest: async () => JSON.parse(await readFile(manifestPath, 'utf8')) }),
      ).concat(
        new HttpLink({
          uri: `${service.url}/graphql`,
          headers: { authorization: `Bearer ${token}` },
          fetch: (url, init) => (sent.push(JSON.parse(String(init?.body))), fetch(url, init)),
        }),
      ),
      cache: new InMemoryCache({ typePolicies: { Coverage: { keyFields: false } } }),
    });
    const { data } = await client.query({ query: PolicyDocument, variables: { number } });
    expect(data?.policy).toMatchObject({ number, organization: { id: organizationId } });
    // The link sent the id and no text.
    expect(sent[0]).toMatchObject({ extensions: { persistedQuery: { version: 1, sha256Hash: expect.any(String) } } });
    expect(sent[0].query).toBeUndefined();
    // A document outside the manifest has no id: the link refuses it before sending anything.
    const before = sent.length;
    await expect(client.query({ query: gql`query Sneaky { viewer { sub } }` })).rejects.toThrow(/Sneaky/);
    expect(sent.length).toBe(before);
    client.stop();
  });
});
