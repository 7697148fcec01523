import {
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type SelectionSetNode,
  valueFromAST,
} from 'graphql';
import { Extensions } from 'type-graphql';
import { badUserInput } from '../errors/errors.js';
import type { ReadBackResource } from '../idempotency/read-back.js';

/**
 * What a mutation writes, declared once on its field (issue 37, security review 3 H2) and read
 * from the schema: the budget it spends, the read that rebuilds its answer for an
 * Idempotency-Key, and the argument naming the record it writes to. The creates budget of
 * `/graphql` (operation-checks.ts), REST's (a route spends what its document's mutation
 * declares) and idempotency's read-back all read this, so a new mutation cannot be free on one
 * surface and charged on the other, and one without a declaration stops the service's start.
 */
export interface WriteDeclaration {
  /** The caller's budget each run of the field spends one of (contract section 12: 600 creates a minute). */
  budget: 'creates';
  /** The query field that reads back what it wrote, by the record it marked on its key; null: no key on `/graphql`. */
  readBack: ReadBackResource | null;
  /** The argument naming the record written to (a policy's `number`): part of an Idempotency-Key's scope. */
  record?: string;
}

const EXTENSION = 'write';

/** Declares a mutation field's write: `@Write({ budget: 'creates', readBack: 'policy', record: 'number' })`. */
export const Write = (declaration: WriteDeclaration) => Extensions({ [EXTENSION]: declaration });

const declared = new WeakMap<GraphQLSchema, ReadonlyMap<string, WriteDeclaration>>();

/**
 * Every mutation field's declaration, read once per schema. A mutation without one is an error
 * naming it: the service refuses to start (schema.ts) rather than run an unbudgeted write.
 */
export function declaredWrites(schema: GraphQLSchema): ReadonlyMap<string, WriteDeclaration> {
  let writes = declared.get(schema);
  if (writes) return writes;
  const fields = Object.values(schema.getMutationType()?.getFields() ?? {});
  const missing = fields.filter((field) => writeOf(field) === undefined).map((field) => field.name);
  if (missing.length > 0) throw new Error(`Mutation fields without a @Write declaration: ${missing.join(', ')}`);
  writes = new Map(fields.map((field) => [field.name, writeOf(field) as WriteDeclaration]));
  declared.set(schema, writes);
  return writes;
}

function writeOf(field: GraphQLField<unknown, unknown>): WriteDeclaration | undefined {
  return (field.extensions as { [EXTENSION]?: WriteDeclaration })[EXTENSION];
}

/**
 * How much of the creates budget a mutation's root selection spends: one per field that declares
 * it, through fragments at the root too (a document may alias one field many times).
 */
export function createsSpent(schema: GraphQLSchema, selectionSet: SelectionSetNode, document: DocumentNode): number {
  const writes = declaredWrites(schema);
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += writes.get(selection.name.value)?.budget === 'creates' ? 1 : 0;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += createsSpent(schema, selection.selectionSet, document);
    else {
      const fragment = document.definitions.find(
        (definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) count += createsSpent(schema, fragment.selectionSet, document);
    }
  }
  return count;
}

/** The read-back of each mutation field, for idempotency/read-back.ts (which sits below this file). */
export const readBackOf =
  (schema: GraphQLSchema) =>
  (field: string): ReadBackResource | null =>
    declaredWrites(schema).get(field)?.readBack ?? null;

/**
 * The record a write names, as its declaration says (`{ number: 5 }`; `{}` when it names none):
 * with the field, what an Idempotency-Key is scoped to on both surfaces. From the field's
 * argument (a literal or a variable) on `/graphql`, from the route's variables on REST.
 */
export function writtenRecord(
  schema: GraphQLSchema,
  field: string,
  values: { node: FieldNode; variables: Record<string, unknown> } | { variables: Record<string, unknown> },
): Record<string, unknown> {
  const record = declaredWrites(schema).get(field)?.record;
  if (record === undefined) return {};
  if (!('node' in values)) return { [record]: values.variables[record] };
  const argument = schema
    .getMutationType()
    ?.getFields()
    [field]?.args.find((definition) => definition.name === record);
  const node = values.node.arguments?.find((given) => given.name.value === record);
  const value = argument && node ? valueFromAST(node.value, argument.type, values.variables) : undefined;
  // The executor would refuse the argument too: answered before the key is claimed.
  if (value === undefined) throw badUserInput([{ path: record, message: 'is required and must be a valid value of this argument' }]);
  return { [record]: value };
}
