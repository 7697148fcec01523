import { isInputObjectType, isListType, isNonNullType, type GraphQLInputType } from 'graphql';

/**
 * Maps a REST JSON body onto a GraphQL input type: unknown top-level fields are dropped (REST
 * accepts and ignores them), while on types that keep extras (`AddressInput.additionalFields`)
 * unknown properties are gathered there. Values are left as sent: coercion judges them next.
 */
export function inputFromBody(value: unknown, type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return Array.isArray(value) ? value.map((item) => inputFromBody(item, inner.ofType)) : value;
  if (!isInputObjectType(inner) || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const fields = inner.getFields();
  const known: Array<[string, unknown]> = [];
  const extra: Array<[string, unknown]> = [];
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(fields, key) && key !== 'additionalFields') known.push([key, inputFromBody(item, fields[key].type)]);
    else extra.push([key, item]);
  }
  if (fields.additionalFields && extra.length > 0) known.push(['additionalFields', Object.fromEntries(extra)]);
  // Object.fromEntries defines own properties, so a "__proto__" key cannot reach a prototype.
  return Object.fromEntries(known);
}

/** GraphQL data onto REST JSON: an address comes back flat, as it was sent. */
export function flattenAddress(address: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!address) return null;
  const { additionalFields, ...named } = address;
  const given = Object.entries(named).filter(([, value]) => value !== null);
  return { ...(additionalFields as Record<string, unknown> | null), ...Object.fromEntries(given) };
}
