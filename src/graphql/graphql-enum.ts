import { registerEnumType } from 'type-graphql';

/** A closed set as an object whose keys are its values (`{ fee: 'fee', ... }`), the shape type-graphql takes for an enum. */
export type EnumObject<T extends string> = { readonly [K in T]: K };

/**
 * The GraphQL enum of a closed set, from the set's one constant (a `const` tuple of its REST
 * strings): each value is both the enum value's name and what resolvers return, so a GraphQL
 * answer and a REST one carry the same bytes, and a client's codegen gets a union of exactly
 * these strings. Each value's description comes from `values` when given.
 */
export function graphqlEnum<const T extends readonly string[]>(
  values: T,
  config: { name: string; description: string; values?: Partial<Record<T[number], string>> },
): EnumObject<T[number]> {
  const object = Object.freeze(Object.fromEntries(values.map((value) => [value, value]))) as EnumObject<T[number]>;
  const described: Array<[string, string | undefined]> = Object.entries(config.values ?? {});
  const valuesConfig = Object.fromEntries(described.map(([value, description]) => [value, { description }]));
  registerEnumType<object>(object, { name: config.name, description: config.description, valuesConfig });
  return object;
}
