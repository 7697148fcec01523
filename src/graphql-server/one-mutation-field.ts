import { GraphQLError, Kind, type ASTVisitor, type SelectionSetNode, type ValidationContext } from 'graphql';

/**
 * A mutation runs one create (decided in issue 11; docs/decisions.md). A refused create is a
 * refusal of the whole request, with no `data` (error-head.ts, graphqlAnswerHead); with one
 * create per request that drops nothing: the create wrote nothing. Two creates in one request
 * could lose the first one's answer when the second is refused, so they are sent apart, each
 * with its own Idempotency-Key.
 */
export function oneMutationField(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(operation) {
      if (operation.operation !== 'mutation') return;
      const fields = rootFields(operation.selectionSet, context, new Set());
      if (fields > 1) {
        context.reportError(
          new GraphQLError('A mutation selects one create field; send each create as its own request.', { nodes: [operation] }),
        );
      }
    },
  };
}

/** Root fields but `__typename`, through inline fragments and fragment spreads (each once). */
function rootFields(selectionSet: SelectionSetNode, context: ValidationContext, seen: Set<string>): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += selection.name.value === '__typename' ? 0 : 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += rootFields(selection.selectionSet, context, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      if (fragment) count += rootFields(fragment.selectionSet, context, seen);
    }
  }
  return count;
}
