import { isInputObjectType, isListType, type GraphQLInputType } from 'graphql';
import { childNodes, inputNode, isPlainObject, type InputNode } from '../input/walk-input.js';

/**
 * Maps a REST JSON body onto a GraphQL input type: unknown top-level fields are dropped (REST
 * accepts and ignores them), while on types that keep extras (`AddressInput.additionalFields`)
 * unknown properties are gathered there. Values are left as sent: coercion judges them next.
 */
export function inputFromBody(value: unknown, type: GraphQLInputType): unknown {
  return fromBody(inputNode(value, type));
}

function fromBody(node: InputNode): unknown {
  const { value, type } = node;
  if (isListType(type)) return Array.isArray(value) ? childNodes(node).map(fromBody) : value;
  if (!isInputObjectType(type) || !isPlainObject(value)) return value;
  const fields = type.getFields();
  const known = childNodes(node)
    .filter((child) => child.field!.name !== 'additionalFields')
    .map((child): [string, unknown] => [child.field!.name, fromBody(child)]);
  const extra = Object.entries(value).filter(([key]) => !Object.hasOwn(fields, key) || key === 'additionalFields');
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
