import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { fromGraphQLCodegenPersistedDocuments, generatePersistedQueryManifest } from '@apollo/generate-persisted-query-manifest';
import { generatePersistedQueryIdsFromManifest } from '@apollo/persisted-query-lists';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PolicyDocument } from '../generated/graphql.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request, type TestResponse } from '../support/http.js';
import { startTestService, useTestService } from '../support/test-service.js';
import { CODEGEN_MANIFEST, asText, idOf } from '../support/trusted-documents.js';

/**
 * Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS): the manifest GraphQL Code Generator's client
 * preset writes for test/operations (test/generated/persisted-documents.json), and the one
 * Apollo's generate-persisted-query-manifest makes from it for Apollo Client's persisted-query
 * link. A document named by id runs prepared (graphql-jit) and must answer exactly what the
 * same document sent as text answers through Apollo Server: over HTTP here, with the access line,
 * a manifest that cannot run and Apollo Client; its refusals, the method and CSRF rules, the
 * manifest-only mode and replays, through the operation core: test/in-process/trusted-documents.
 */
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
  it('takes the id with or without its sha256: prefix, and as Apollo’s extensions.persistedQuery', async () => {
    const bare = idOf(PolicyDocument).replace(/^sha256:/, '');
    for (const body of [{ documentId: bare }, { extensions: { persistedQuery: { version: 1, sha256Hash: bare } } }]) {
      const response = await post(service.url, { ...body, variables: { number } }, token);
      expect(response.status).toBe(200);
      expect(response.body.data.policy.number).toBe(number);
    }
  });

  it('names the operation on the access line and in the metrics, as for any document', async () => {
    await post(service.url, { documentId: idOf(PolicyDocument), variables: { number } }, token);
    const metrics = (await request(service.url, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/graphql_operations_total\{[^}]*name="Policy"[^}]*type="query"[^}]*\} [1-9]/);
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
