import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';

/**
 * Every field costs 1 plus what it selects; a connection costs `first` times what one of its
 * edges costs, because that is how many rows it may load. Other lists are short by rule
 * (at most 25 owners, 10 accounts, 61 charges) and counted once.
 */
const pageSize: ComplexityEstimator = ({ args, childComplexity }) =>
  typeof args.first === 'number' ? Math.max(args.first, 1) * (1 + childComplexity) : undefined;

/**
 * The cost limit, with the operation's variables (so `first: $n` counts as sent), checked
 * once the operation is known and before any resolver runs. graphql-query-complexity does the
 * walking; GraphQL Armor's depth-based cost cannot see page sizes.
 */
export function queryCostLimit<T extends object>(maxCost: number): ApolloServerPlugin<T> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          const cost = getComplexity({
            schema,
            query: document,
            variables: request.variables,
            operationName: request.operationName ?? undefined,
            estimators: [pageSize, simpleEstimator({ defaultComplexity: 1 })],
          });
          if (cost > maxCost) {
            throw new GraphQLError(`Query cost limit of ${maxCost} exceeded, found ${cost}.`, {
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}
