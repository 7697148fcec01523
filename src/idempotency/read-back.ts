import { Kind, type DocumentNode, type FieldNode, type OperationDefinitionNode } from 'graphql';
import type { CreatedRecord } from './idempotency.js';

/** The query fields that read back what a write recorded on its key: `policy(number:)`, `organization(id:)`, `quote(id:)`. */
export type ReadBackResource = 'policy' | 'organization' | 'quote';

/** The one write of a mutation that an Idempotency-Key may guard, with the read that rebuilds its answer. */
export interface GuardedWrite {
  field: FieldNode;
  readBack: ReadBackResource;
}

/**
 * The one root field of a mutation that may carry an Idempotency-Key, or null: a field whose
 * write declaration (graphql/write.ts) names a read-back. A key guards one write, so that its
 * answer can always be rebuilt from the one record it made.
 */
export function guardedWrite(
  operation: OperationDefinitionNode,
  readBackOf: (field: string) => ReadBackResource | null,
): GuardedWrite | null {
  if (operation.operation !== 'mutation' || operation.selectionSet.selections.length !== 1) return null;
  const [field] = operation.selectionSet.selections;
  const readBack = field.kind === Kind.FIELD ? readBackOf(field.name.value) : null;
  return field.kind === Kind.FIELD && readBack !== null ? { field, readBack } : null;
}

/**
 * The create's document turned into the read of what it created: the same alias and selection
 * (so the answer has the same shape), `policy(number:)`, `organization(id:)` or `quote(id:)` instead of the
 * create, as a query. Fragments stay as they are.
 */
export function readBackDocument(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  guarded: GuardedWrite,
  created: CreatedRecord,
): DocumentNode {
  const { field: create, readBack } = guarded;
  const argument =
    created.type === 'policy'
      ? { name: 'number', value: { kind: Kind.INT, value: String(created.number) } as const }
      : { name: 'id', value: { kind: Kind.STRING, value: created.id } as const };
  const read: FieldNode = {
    ...create,
    alias: create.alias ?? { kind: Kind.NAME, value: create.name.value },
    name: { kind: Kind.NAME, value: readBack },
    arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: argument.name }, value: argument.value }],
  };
  const query: OperationDefinitionNode = {
    ...operation,
    operation: 'query' as never,
    selectionSet: { kind: Kind.SELECTION_SET, selections: [read] },
  };
  return { kind: Kind.DOCUMENT, definitions: document.definitions.map((definition) => (definition === operation ? query : definition)) };
}
