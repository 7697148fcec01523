import { beforeAll, describe, expect, it } from 'vitest';
import type { GraphQLSchema } from 'graphql';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { openApiDocument } from '../../src/rest/openapi.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { PLAIN_ROUTES } from '../../src/rest/audit-export.js';

/**
 * Every route of the route table is documented in OpenAPI with its method, and nothing else is:
 * a new route (a new transaction kind's step, say) without its OpenAPI path fails here, by name.
 * The paths are still written in rest/openapi.ts; issue 42 derives them from the route table.
 */
describe('the OpenAPI paths and the route table', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildServiceSchema();
  });

  it('document every route of REST_ROUTES, method for method', () => {
    const document = openApiDocument(schema, 'test') as { paths: Record<string, Record<string, unknown>> };
    const routes = [...REST_ROUTES, ...PLAIN_ROUTES].map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`).sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) =>
        Object.keys(operations)
          .filter((method) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    expect(documented).toEqual(routes);
  });
});
