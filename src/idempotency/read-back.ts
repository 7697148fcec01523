import { Kind, type DocumentNode, type FieldNode, type OperationDefinitionNode } from 'graphql';
import type { CreatedRecord } from './idempotency.js';

/** The root fields an Idempotency-Key may guard, and the read that serves what each created. */
const READ_OF: Record<string, CreatedRecord['type']> = {
  createPolicy: 'policy',
  createOrganization: 'organization',
  createQuote: 'quote',
  // A change, cancellation or reinstatement answers the policy: a replay reads it back.
  changePolicy: 'policy',
  cancelPolicy: 'policy',
  reinstatePolicy: 'policy',
  // A change answers the organization: a replay after a crash reads it back.
  updateOrganization: 'organization',
  // A renewal answers the successor, the policy it records as created.
  renewPolicy: 'policy',
};

/**
 * The one create field of a mutation that may carry an Idempotency-Key, or null. A key guards
 * one create, so that its answer can always be rebuilt from the one record it made.
 */
export function guardedCreate(operation: OperationDefinitionNode): FieldNode | null {
  if (operation.operation !== 'mutation' || operation.selectionSet.selections.length !== 1) return null;
  const [field] = operation.selectionSet.selections;
  return field.kind === Kind.FIELD && Object.hasOwn(READ_OF, field.name.value) ? field : null;
}

/**
 * The create's document turned into the read of what it created: the same alias and selection
 * (so the answer has the same shape), `policy(number:)`, `organization(id:)` or `quote(id:)` instead of the
 * create, as a query. Fragments stay as they are.
 */
export function readBackDocument(document: DocumentNode, operation: OperationDefinitionNode, created: CreatedRecord): DocumentNode {
  const create = guardedCreate(operation);
  if (!create) throw new Error('a read-back needs a single guarded create');
  const argument =
    created.type === 'policy'
      ? { name: 'number', value: { kind: Kind.INT, value: String(created.number) } as const }
      : { name: 'id', value: { kind: Kind.STRING, value: created.id } as const };
  const read: FieldNode = {
    ...create,
    alias: create.alias ?? { kind: Kind.NAME, value: create.name.value },
    name: { kind: Kind.NAME, value: READ_OF[create.name.value] },
    arguments: [{ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: argument.name }, value: argument.value }],
  };
  const query: OperationDefinitionNode = {
    ...operation,
    operation: 'query' as never,
    selectionSet: { kind: Kind.SELECTION_SET, selections: [read] },
  };
  return { kind: Kind.DOCUMENT, definitions: document.definitions.map((definition) => (definition === operation ? query : definition)) };
}
