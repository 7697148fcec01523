import { GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';

/**
 * Every field costs 1 plus what it selects; a connection costs `first` times what one of its
 * edges costs, because that is how many rows it may load. Other lists are short by rule
 * (at most 25 owners, 10 accounts, 61 charges) and counted once.
 */
const pageSize: ComplexityEstimator = ({ args, childComplexity }) =>
  typeof args.first === 'number' ? Math.max(args.first, 1) * (1 + childComplexity) : undefined;

/**
 * The cost limit, computed with the operation's variables (so `first: $n` counts as sent)
 * once the operation is known and before any resolver runs. graphql-query-complexity walks
 * the query; GraphQL Armor's depth-based cost model cannot see page sizes.
 */
export function assertQueryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  request: { variables?: Record<string, unknown>; operationName?: string | null },
  maxCost: number,
): void {
  let cost: number;
  try {
    cost = getComplexity({
      schema,
      query: document,
      variables: request.variables,
      operationName: request.operationName ?? undefined,
      estimators: [pageSize, simpleEstimator({ defaultComplexity: 1 })],
    });
  } catch {
    // Variables that do not coerce: the input check refuses the request with the field list.
    return;
  }
  if (cost > maxCost) {
    throw new GraphQLError(`Query cost limit of ${maxCost} exceeded, found ${cost}.`, {
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
    });
  }
}
