import type { ComplexityEstimator } from 'graphql-query-complexity';

/**
 * The cost of a list field that is not a connection: its maximum size times what one item
 * costs (graphql-server/query-cost.ts explains the whole cost model). Declared on the field,
 * e.g. `@FieldResolver(() => [Owner], { complexity: listCost(MAX_OWNERS) })`.
 */
export function listCost(maxItems: number): ComplexityEstimator {
  return ({ childComplexity }) => maxItems * (1 + childComplexity);
}
