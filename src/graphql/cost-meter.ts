import { GraphQLError, Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * What is left of an operation's cost limit once its static cost is counted (contract section
 * 14, "Bounded ledgers": every read pays for what it returns). Every operation is metered: a
 * `/graphql` query, a mutation's answer and a REST document alike. What differs is what an
 * overrun does (docs/decisions.md, "Reads pay for what they return"):
 * - a query is refused (`refuses`): its caller chose the selection and can ask for less;
 * - an answer (a mutation's, read after its write committed, or a REST document, whose
 *   selection is the service's own) is never refused: its lists stop early instead.
 * Either way a list page stops before the item that would pass the limit (pageWithinMeter).
 */
export interface CostMeter {
  limit: number;
  left: number;
  refuses: boolean;
  /** Items whose lists a page has already paid for (pageWithinMeter): their own resolvers do not charge again. */
  readonly paid: WeakSet<object>;
}

/** Only for work outside any request's operation (a test's schema run): nothing is counted. */
export const UNMETERED: CostMeter = Object.freeze({ limit: Infinity, left: Infinity, refuses: false, paid: new WeakSet<object>() });

/** A `/graphql` query's meter: what its checked static cost left of the limit; an overrun refuses it. */
export function queryMeter(limit: number, staticCost: number): CostMeter {
  return { limit, left: limit - staticCost, refuses: true, paid: new WeakSet() };
}

/** An answer's meter (a mutation's, a REST document's): an overrun only stops lists early. */
export function answerMeter(limit: number, staticCost = 0): CostMeter {
  return { limit, left: limit - staticCost, refuses: false, paid: new WeakSet() };
}

/**
 * The runtime half of the cost limit, for a list whose static cost is an estimate rather than
 * a maximum: a policy's charges are estimated at its schedule's size, but cancellations and
 * reinstatements make a ledger longer. What such a list holds beyond its estimate is charged
 * as it is read, each item at 1 plus the fields selected on it (the static rule), against what
 * the static cost left; past the limit a query is refused, as a query over it is before it
 * runs. `owner` is the object the list belongs to: a page that paid for it already is not charged again.
 */
export function chargeBeyondEstimate(meter: CostMeter, owner: object, items: number, estimate: number, info: GraphQLResolveInfo): void {
  if (items <= estimate || meter.left === Infinity || meter.paid.has(owner)) return;
  meter.left -= (items - estimate) * (1 + selectedFields(info.fieldNodes[0].selectionSet, info));
  if (meter.left < 0 && meter.refuses) throw overrun(meter, `a list held ${items} items, over the ${estimate} its cost counted`);
}

/** A page of a connection (graphql/batch.ts, `Page`): its items' nodes are objects. */
interface MeteredPage {
  items: Array<{ node: object; seq: string }>;
  hasNextPage: boolean;
  endSeq?: string;
}

/**
 * A page whose items may cost more than their static estimate (a policy with a long ledger, an
 * event carrying a large object), cut to what the meter has left: items are kept in order while
 * their cost beyond the estimate (`costOf`) fits, and the page stops before the first that does
 * not, with more to follow from the last one kept (contract section 14: a page stops early,
 * with `hasMore` and a cursor). The first item is always kept, so paging always moves on: one
 * item costs at most what one ledger at its cap does. A query whose first item alone passes
 * the limit is refused, as a query over it is.
 */
export function pageWithinMeter<P extends MeteredPage>(meter: CostMeter, page: P, costOf: (node: P['items'][number]['node']) => number): P {
  if (meter.left === Infinity) return page;
  let kept = 0;
  for (const { node } of page.items) {
    const cost = costOf(node);
    if (kept > 0 && cost > meter.left) break;
    meter.left -= cost;
    meter.paid.add(node);
    kept++;
    if (meter.left < 0 && meter.refuses) throw overrun(meter, 'one item of a list cost more than the query had left');
  }
  if (kept === page.items.length) return page;
  // Cut short: the next page continues after the last item kept (a walk's end, endSeq, lies further on).
  return { ...page, items: page.items.slice(0, kept), hasNextPage: true, endSeq: undefined };
}

/**
 * What one item of a connection's nodes pays per unit of a metered list it holds: the sum, over
 * every selection of `listField` under `edges { node { … } }` (aliases and fragments included),
 * of 1 plus the fields selected on it. 0 when the list is not selected: the page pays nothing for it.
 */
export function nodeListWeight(info: GraphQLResolveInfo, listField: string): number {
  return nodeFields(info, listField).reduce((weight, list) => weight + 1 + selectedFields(list.selectionSet, info), 0);
}

/** Whether a connection's nodes select this field (through aliases and fragments). */
export function nodeSelects(info: GraphQLResolveInfo, field: string): boolean {
  return nodeFields(info, field).length > 0;
}

/** Every selection of `field` under a connection's `edges { node { … } }`, through aliases and fragments. */
function nodeFields(info: GraphQLResolveInfo, field: string): FieldNode[] {
  const edges = fieldsNamed(
    info.fieldNodes.map((node) => node.selectionSet),
    'edges',
    info,
  );
  const nodes = fieldsNamed(
    edges.map((edge) => edge.selectionSet),
    'node',
    info,
  );
  return fieldsNamed(
    nodes.map((node) => node.selectionSet),
    field,
    info,
  );
}

/**
 * What stored JSON served as one scalar (an event's `data`) costs beyond the 1 point its field
 * counts statically: a point per this many bytes, so at the default limit (5,000) a page's JSON
 * stays within half the default response cap (5 MB). A page of large events stops early rather
 * than pass the cap (contract section 14), while ordinary events (a few KB) fill a page of 100.
 */
export const JSON_BYTES_PER_POINT = 512;

/** The cost of stored JSON of this many bytes beyond its one static point. */
export function jsonCostBeyondEstimate(bytes: number): number {
  return Math.max(0, Math.ceil(bytes / JSON_BYTES_PER_POINT) - 1);
}

type FieldNode = Extract<SelectionSetNode['selections'][number], { kind: Kind.FIELD }>;

/** The fields of this name in the selection sets, through inline fragments and spreads. */
function fieldsNamed(sets: ReadonlyArray<SelectionSetNode | undefined>, name: string, info: GraphQLResolveInfo): FieldNode[] {
  const found: FieldNode[] = [];
  const walk = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === name) found.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else walk(info.fragments[selection.name.value]?.selectionSet);
    }
  };
  sets.forEach(walk);
  return found;
}

/** The fields selected on a list's items (scalars: charges have no nested objects), through fragments. */
function selectedFields(selectionSet: SelectionSetNode | undefined, info: GraphQLResolveInfo): number {
  let count = 0;
  for (const selection of selectionSet?.selections ?? []) {
    if (selection.kind === Kind.FIELD) count += 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += selectedFields(selection.selectionSet, info);
    else count += selectedFields(info.fragments[selection.name.value]?.selectionSet, info);
  }
  return count;
}

function overrun(meter: CostMeter, what: string): GraphQLError {
  return new GraphQLError(`Query cost limit of ${meter.limit} exceeded while reading: ${what}. Ask for fewer of them in one query.`, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
  });
}
