import { GraphQLError, Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * What is left of a query's cost limit once its static cost is counted. Only queries have a
 * limit to meter against: a mutation's answer is read after its write committed, and refusing
 * it then would hide a write that happened (it is bounded by the static cost and the stored
 * lists' own caps). REST's documents are the service's own and carry no limit.
 */
export interface CostMeter {
  limit: number;
  left: number;
}

export const UNMETERED: CostMeter = Object.freeze({ limit: Infinity, left: Infinity });

/**
 * The runtime half of the cost limit, for a list whose static cost is an estimate rather than
 * a maximum: a policy's charges are estimated at its schedule's size, but cancellations and
 * reinstatements make a ledger longer. What such a list holds beyond its estimate is charged
 * as it is read, each item at 1 plus the fields selected on it (the static rule), against what
 * the static cost left; past the limit the query is refused, as a query over it is before it runs.
 */
export function chargeBeyondEstimate(meter: CostMeter, items: number, estimate: number, info: GraphQLResolveInfo): void {
  if (items <= estimate || meter.left === Infinity) return;
  meter.left -= (items - estimate) * (1 + selectedFields(info.fieldNodes[0].selectionSet, info));
  if (meter.left < 0) {
    throw new GraphQLError(
      `Query cost limit of ${meter.limit} exceeded while reading: a list held ${items} items, over the ${estimate} its cost counted. ` +
        'Ask for fewer of them in one query.',
      { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
    );
  }
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
