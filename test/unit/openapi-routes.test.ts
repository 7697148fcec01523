import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphQLSchema } from 'graphql';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { openApiDocument, openApiPath } from '../../src/rest/openapi.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { PLAIN_ROUTES } from '../../src/rest/audit-export.js';
import { hasBody } from '../../src/rest/rest-operation.js';

const METHODS = ['get', 'post', 'patch', 'put', 'delete'];
type Operation = {
  summary?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, { schema: { $ref: string } }> };
};
type Document = {
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { additionalProperties?: boolean }> };
};

/**
 * The OpenAPI paths are written from the route table (issue 42): every route of REST_ROUTES and
 * the plain routes is there with its method, nothing else is, and each carries what the table
 * must give it. A new entry without its words fails here, by name.
 */
describe('the OpenAPI paths and the route table', () => {
  let schema: GraphQLSchema;
  let document: Document;
  beforeAll(async () => {
    schema = await buildServiceSchema();
    document = openApiDocument(schema, 'test') as unknown as Document;
  });
  const routes = () => [...REST_ROUTES, ...PLAIN_ROUTES];
  const operationOf = (route: { method: string; path: string }) => document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];

  it('document every route of REST_ROUTES, method for method, and nothing else', () => {
    const listed = routes().map((route) => `${route.method} ${openApiPath(route.path)}`);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => METHODS.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(listed.sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('give each operation a summary, a described tag, a 4xx and its query parameters, and an id of its own', () => {
    const tags = document.tags.map((tag) => tag.name);
    for (const route of routes()) {
      const name = `${route.method} ${route.path}`;
      const operation = operationOf(route);
      expect(operation.summary, name).toMatch(/\w/);
      expect(operation.tags, name).toHaveLength(1);
      expect(tags, name).toContain(operation.tags![0]);
      expect(Object.keys(operation.responses).filter((status) => /^4\d\d$/.test(status)).length, name).toBeGreaterThan(0);
      // Every route answers 400 for a query parameter it does not take (contract section 18), so the document says so.
      expect(JSON.stringify(operation.responses[400]), name).toContain('is not a parameter of this request');
      const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      expect(query, name).toEqual((route.query ?? []).map((parameter) => parameter.name));
    }
    const ids = routes().map((route) => route.doc.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('say which bodies refuse unknown fields: a closed route has a closed schema, an open one an open schema', () => {
    for (const route of REST_ROUTES.filter(hasBody)) {
      const name = `${route.method} ${route.path}`;
      const media = Object.values(operationOf(route).requestBody!.content);
      for (const { schema: body } of media) {
        const component = document.components.schemas[body.$ref.replace('#/components/schemas/', '')];
        expect(component.additionalProperties === false, name).toBe(route.closedBody === true);
      }
    }
  });

  it('refer only to components that are there', () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(([, name]) => name);
    expect(refs.length).toBeGreaterThan(0);
    for (const name of new Set(refs)) expect(document.components.schemas, name).toHaveProperty(name);
  });

  /**
   * The parameters a route declares are exactly those its `variables` reads: one declared and
   * never read would be dropped as silently as a typo, one read and not declared would be refused.
   * With no parameters given, every route reads each of its own (none has a branch that skips one).
   */
  it('declare exactly the query parameters each route reads', () => {
    for (const route of REST_ROUTES) {
      if (hasBody(route)) {
        expect(route.query ?? [], `${route.method} ${route.path} takes no query parameters`).toEqual([]);
        continue;
      }
      const read = new Set<string>();
      const query = new Proxy(
        {},
        {
          get: (_, name) => void (typeof name === 'string' && read.add(name)),
        },
      );
      route.variables({ params: { id: '1' }, query }, { sub: 'reader', org: '5f0c6f3e-8a5b-4a43-9df1-3c1c7b5a2f10' });
      expect([...read].sort(), `${route.method} ${route.path}`).toEqual((route.query ?? []).map((parameter) => parameter.name).sort());
    }
  });
});
