import { Kind, parse, type SelectionSetNode } from 'graphql';

/**
 * The keys of an answer, in order, with the keys of its nested objects (and of the items of
 * its nested lists): `['id', ['coverage', ['slug', 'name']]]`. Events carry their object in the
 * REST answer's order (contract section 18), and JSON keeps the order keys are written in.
 */
export type KeyOrder = ReadonlyArray<string | readonly [string, KeyOrder]>;

/**
 * `value` with exactly the keys of `order`, in that order: a key it lacks is null (answers carry
 * every field), a key `order` does not name is left out. Lists are ordered item by item.
 */
export function inKeyOrder(order: KeyOrder, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => inKeyOrder(order, item));
  if (typeof value !== 'object' || value === null) return value;
  const source = value as Record<string, unknown>;
  return Object.fromEntries(
    order.map((entry) => {
      const [key, nested] = typeof entry === 'string' ? [entry, null] : entry;
      const field = source[key] ?? null;
      return [key, nested === null ? field : inKeyOrder(nested, field)];
    }),
  );
}

/**
 * The key order of the answer a GraphQL fragment selects (a REST answer's, contract section 18):
 * each field by its alias or name, with the keys of an object it selects; the fields named in
 * `leaves` are objects REST gives as they are (an address, flat), so their keys are not ordered.
 */
export function keyOrderOf(fragment: string, leaves: readonly string[] = []): KeyOrder {
  const [definition] = parse(fragment).definitions;
  if (definition.kind !== Kind.FRAGMENT_DEFINITION) throw new Error('keyOrderOf takes one fragment');
  const walk = (set: SelectionSetNode): KeyOrder =>
    set.selections.map((selection) => {
      if (selection.kind !== Kind.FIELD) throw new Error(`${definition.name.value} selects fields only`);
      const key = selection.alias?.value ?? selection.name.value;
      return selection.selectionSet && !leaves.includes(key) ? ([key, walk(selection.selectionSet)] as const) : key;
    });
  return walk(definition.selectionSet);
}
