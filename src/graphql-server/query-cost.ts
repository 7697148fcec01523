import { beforeExecution } from '../errors/error-head.js';
import {
  GraphQLError,
  getNullableType,
  isListType,
  type DocumentNode,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { DEFAULT_MAX_ITEMS } from '../input/input-shape.js';

/**
 * The cost of a query is an upper bound on the rows and fields it can make the service load and
 * write out:
 * - every field costs 1 plus what it selects;
 * - a connection costs `first` times what one of its edges costs (that many rows may load);
 * - any other list costs its maximum size times what one item costs: the size the field
 *   declares with `listCost` (charges 61, owners 25, bank accounts 10), else DEFAULT_MAX_ITEMS.
 * Introspection is counted as plain fields: its lists are the schema's own, not data.
 */
const pageSize: ComplexityEstimator = ({ args, childComplexity }) =>
  typeof args.first === 'number' ? Math.max(args.first, 1) * (1 + childComplexity) : undefined;

const undeclaredList: ComplexityEstimator = ({ field, type, childComplexity }) =>
  isListType(getNullableType((field as GraphQLField<unknown, unknown>).type)) && !type.name.startsWith('__')
    ? DEFAULT_MAX_ITEMS * (1 + childComplexity)
    : undefined;

const ESTIMATORS = [fieldExtensionsEstimator(), pageSize, undeclaredList, simpleEstimator({ defaultComplexity: 1 })];

/**
 * The walk gives up past this many selections. Fragments are expanded wherever they are spread,
 * so a few spreads of spreads can stand for millions of selections (and of resolver calls):
 * such a query is refused, never let through uncounted.
 */
const MAX_COUNTED_SELECTIONS = 10_000;

/** The cost of an operation whose variables have been checked; throws if it cannot be counted. */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  request: { variables?: Record<string, unknown>; operationName?: string | null },
): number {
  return getComplexity({
    schema,
    query: document,
    variables: request.variables,
    operationName: request.operationName ?? undefined,
    estimators: ESTIMATORS,
    maxQueryNodes: MAX_COUNTED_SELECTIONS,
  });
}

/**
 * The cost limit, checked once the operation is known, its variables checked, and before any
 * resolver runs. It never fails open: a cost that cannot be computed is a refusal. Returns the
 * cost, which the caller's per-minute cost budget is then charged.
 */
export function assertQueryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  request: { variables?: Record<string, unknown>; operationName?: string | null },
  maxCost: number,
): number {
  let cost: number;
  try {
    cost = queryCost(schema, document, request);
  } catch {
    throw refusal(`The query's cost cannot be computed: it expands to more than ${MAX_COUNTED_SELECTIONS} selections.`);
  }
  if (!Number.isFinite(cost) || cost > maxCost) throw refusal(`Query cost limit of ${maxCost} exceeded, found ${cost}.`);
  return cost;
}

function refusal(message: string): GraphQLError {
  return beforeExecution(new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
}
