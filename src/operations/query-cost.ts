import { GraphQLError, Kind, getNullableType, isListType, visit, type DocumentNode, type GraphQLField, type GraphQLSchema } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { DEFAULT_MAX_ITEMS } from '../input/input-shape.js';

/**
 * The cost of a query is an upper bound on the rows and fields it can make the service load and
 * write out:
 * - every field costs 1 plus what it selects;
 * - a connection costs `first` times what one of its edges costs (that many rows may load);
 * - any other list costs its maximum size times what one item costs: the size the field
 *   declares with `listCost` (charges 61, owners 25, bank accounts 10), else DEFAULT_MAX_ITEMS.
 *   Charges is an estimate (a ledger can be longer than its schedule): the rest of a long
 *   ledger is charged as it is read (chargeBeyondEstimate, graphql/cost-meter.ts).
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
 * Costs already counted, per parsed document (Apollo keeps one DocumentNode per query text, so
 * the same text meets the same object), by operation name and the values of the variables the
 * count reads: those given to a `first` argument or to a directive (`@include(if: $x)`). The
 * policy read sends a different `$number` each time and is counted once. A document keeps at
 * most COSTS_PER_DOCUMENT of them (a caller varying `first` cannot grow it further).
 */
const costs = new WeakMap<DocumentNode, { readBy: string[]; byKey: Map<string, number | 'uncountable'> }>();
const COSTS_PER_DOCUMENT = 128;

function countedCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  request: { variables?: Record<string, unknown>; operationName?: string | null },
): number | 'uncountable' {
  let entry = costs.get(document);
  if (!entry) costs.set(document, (entry = { readBy: variablesTheCountReads(document), byKey: new Map() }));
  const key = JSON.stringify([request.operationName ?? null, ...entry.readBy.map((name) => request.variables?.[name] ?? null)]);
  const known = entry.byKey.get(key);
  if (known !== undefined) return known;
  let cost: number | 'uncountable';
  try {
    cost = queryCost(schema, document, request);
  } catch {
    cost = 'uncountable';
  }
  if (entry.byKey.size < COSTS_PER_DOCUMENT) entry.byKey.set(key, cost);
  return cost;
}

/** The variables given to a `first` argument or to any directive's argument, anywhere in the document. */
function variablesTheCountReads(document: DocumentNode): string[] {
  const names = new Set<string>();
  let inDirective = 0;
  visit(document, {
    Directive: { enter: () => void inDirective++, leave: () => void inDirective-- },
    Argument(node) {
      if (node.value.kind === Kind.VARIABLE && (inDirective > 0 || node.name.value === 'first')) names.add(node.value.name.value);
    },
  });
  return [...names].sort();
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
  const cost = countedCost(schema, document, request);
  if (cost === 'uncountable') {
    throw refusal(`The query's cost cannot be computed: it expands to more than ${MAX_COUNTED_SELECTIONS} selections.`);
  }
  if (!Number.isFinite(cost) || cost > maxCost) throw refusal(`Query cost limit of ${maxCost} exceeded, found ${cost}.`);
  return cost;
}

function refusal(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
}
