import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';

/**
 * Query limits (contract section 8): each abusive query is refused while it is parsed or
 * validated, before any resolver runs. "Before any resolver runs" is checked on the database:
 * no statement is sent for a refused query. Through the operation core in process, whose texts
 * Apollo Server runs; Apollo Sandbox's page over HTTP: test/e2e/graphql-limits.
 */
describe('GraphQL query limits', () => {
  const service = useInProcessService();
  let token: string;
  let organizationId: string;
  let statements = 0;

  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
    organizationId = (await service.request('POST', '/api/v1/organization', { token, body: organizationBody() })).body.id;
    service.database.onStatement(() => statements++);
  });

  async function expectRefused(query: string, message: RegExp) {
    statements = 0;
    const response = await service.graphql(query, {}, token);
    expect(response.status).toBe(400);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors.map((error: { message: string }) => error.message).join('\n')).toMatch(message);
    expect(['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED']).toContain(response.body.errors[0].extensions.code);
    expect(statements).toBe(0);
  }

  it('refuses a query nested 20 levels deep', async () => {
    const query = `{ organization(id: "${organizationId}") { ${'parent { '.repeat(20)}id${' }'.repeat(20)} } }`;
    await expectRefused(query, /depth limit of 10 exceeded/);
  });

  it('refuses a query with 500 aliases', async () => {
    const aliases = Array.from({ length: 500 }, (_, i) => `a${i}: sub`).join(' ');
    await expectRefused(`{ viewer { ${aliases} } }`, /Aliases limit of 15 exceeded/);
  });

  it('refuses a query over the cost limit', async () => {
    // Within the depth limit, but up to 100 x 100 organizations with 13 fields each.
    const fields = 'id name legalName legalType taxId description logo type descriptor phone email website parentId';
    const page = (inner: string) => `children(first: 100) { edges { node { ${fields} ${inner} } } }`;
    const query = `{ organization(id: "${organizationId}") { ${page(page(''))} } }`;
    await expectRefused(query, /cost limit of 5000 exceeded/);
  });

  it('counts the same document again for each page size and @include it is sent with (costs are kept per variable values)', async () => {
    const fields = 'id name legalName legalType taxId description logo type descriptor phone email website parentId';
    const query = `query Pages($outer: Int!, $inner: Int!, $deep: Boolean!) {
      organization(id: "${organizationId}") { children(first: $outer) { edges { node { ${fields} children(first: $inner) @include(if: $deep) { edges { node { ${fields} } } } } } } }
    }`;
    const send = (variables: Record<string, unknown>) => service.request('POST', '/graphql', { token, body: { query, variables } });
    expect((await send({ outer: 2, inner: 2, deep: true })).status).toBe(200);
    expect((await send({ outer: 100, inner: 100, deep: false })).status).toBe(200);
    const over = await send({ outer: 100, inner: 100, deep: true });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].message).toMatch(/cost limit of 5000 exceeded/);
    // The costs counted before still hold.
    expect((await send({ outer: 2, inner: 2, deep: true })).status).toBe(200);
    expect((await send({ outer: 100, inner: 100, deep: false })).status).toBe(200);
    expect((await send({ outer: 100, inner: 100, deep: true })).status).toBe(400);
  });

  it('refuses a query with more than 2,000 tokens', async () => {
    const fields = Array.from({ length: 2100 }, () => 'sub').join(' ');
    await expectRefused(`{ viewer { ${fields} } }`, /more that 2000 tokens/);
  });

  it('refuses a query with more than 50 directives', async () => {
    await expectRefused(`{ viewer { sub ${'@include(if: true) '.repeat(51)} } }`, /Directives limit of 50 exceeded/);
  });

  it('answers a reasonable query', async () => {
    const response = await service.graphql(
      `{ organization(id: "${organizationId}") { id children(first: 10) { edges { node { id } } } } }`,
      {},
      token,
    );
    expect(response.body).toEqual({ data: { organization: { id: organizationId, children: { edges: [] } } } });
  });

  it('lets Apollo Sandbox load the schema (introspection is not limited)', async () => {
    const response = await service.graphql(
      `query IntrospectionQuery { __schema { queryType { name } types { kind name fields(includeDeprecated: true) { name args { name type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }`,
    );
    expect(response.status).toBe(200);
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });
});

describe('GraphQL in production', () => {
  const service = useInProcessService({ NODE_ENV: 'production', GRAPHQL_MAX_DEPTH: '3' });
  let token: string;
  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
  });

  it('has no introspection and no field suggestions', async () => {
    const introspection = await service.graphql('{ __schema { queryType { name } } }', {}, token);
    expect(introspection.status).toBe(400);
    const typo = await service.graphql('{ viewr { sub } }', {}, token);
    expect(typo.body.errors[0].message).not.toMatch(/Did you mean/);
  });

  it('takes limits from the environment', async () => {
    const response = await service.graphql('{ viewer { organization { parent { parent { id } } } } }', {}, token);
    expect(response.body.errors[0].message).toMatch(/depth limit of 3 exceeded/);
  });
});

describe('GraphQL in production with GRAPHQL_INTROSPECTION=true', () => {
  const open = useInProcessService({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' });

  it('turns introspection on', async () => {
    const response = await open.graphql('{ __schema { queryType { name } } }', {}, await open.token({ sub: 'a' }));
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });
});
