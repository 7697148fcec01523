import {
  getNamedType,
  getOperationAST,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { DEFAULT_MAX_ITEMS } from '../input/input-shape.js';

/**
 * JSON Schemas for the REST routes, derived from the GraphQL schema (the idea of SOFA's
 * `resolveResponse`): a response schema from the fields a route's document selects, a request
 * schema from the route's input type. A field added to a type and to a route document is
 * described here with no edit; what GraphQL types cannot say is in the overlays below.
 */
export type JsonSchema = Record<string, unknown>;

export interface SchemaOverlays {
  /** Whole types replaced by a component (`Address` is flat in REST). */
  types: Record<string, JsonSchema>;
  /** Extra keywords for one field, by `Type.field`. */
  fields: Record<string, JsonSchema>;
}

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string', format: 'uuid' },
  Int: { type: 'integer' },
  SafeInt: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  JSONObject: { type: 'object' },
};

/**
 * The schema of a route's response: the operation's single root field, as selected; or, given
 * a path of field names below it (`['policies', 'edges', 'node']`), the object selected there.
 */
export function responseSchema(schema: GraphQLSchema, document: string, overlays: SchemaOverlays, path: string[] = []): JsonSchema {
  const parsed = parse(document);
  const operation = getOperationAST(parsed)!;
  let type: GraphQLNamedType = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  let selectionSet = operation.selectionSet;
  const [first] = selectedFields(parsed, selectionSet);
  for (const name of [first.name.value, ...path]) {
    const field = selectedFields(parsed, selectionSet).find((selection) => selection.name.value === name);
    if (!field?.selectionSet || !isObjectType(type)) throw new Error(`the REST document selects no object at ${name}`);
    type = getNamedType(type.getFields()[name].type);
    selectionSet = field.selectionSet;
  }
  if (!isObjectType(type)) throw new Error(`${type.name} is not an object`);
  return objectSchema(parsed, type.name, type.getFields(), selectionSet, overlays);
}

/**
 * The fields a selection set selects, in order, with the fields of each fragment it spreads (a
 * resource's answer, rest/operations.ts) in the spread's place. Inline fragments are refused:
 * a REST answer has one shape.
 */
export function selectedFields(document: DocumentNode, selectionSet: SelectionSetNode): FieldNode[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) throw new Error('REST documents select fields and fragments (no inline fragments)');
    const fragment = document.definitions.find(
      (definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value,
    );
    if (fragment?.kind !== Kind.FRAGMENT_DEFINITION) throw new Error(`the fragment ${selection.name.value} is not in the document`);
    return selectedFields(document, fragment.selectionSet);
  });
}

function objectSchema(
  document: DocumentNode,
  typeName: string,
  fields: Record<string, GraphQLField<unknown, unknown>>,
  selectionSet: SelectionSetNode,
  overlays: SchemaOverlays,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const selection of selectedFields(document, selectionSet)) {
    const field = fields[selection.name.value];
    properties[selection.alias?.value ?? field.name] = {
      ...outputSchema(document, field.type, selection.selectionSet, overlays),
      ...described(field.description),
      ...overlays.fields[`${typeName}.${field.name}`],
    };
  }
  return { type: 'object', required: Object.keys(properties), properties, additionalProperties: false };
}

function outputSchema(
  document: DocumentNode,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  overlays: SchemaOverlays,
): JsonSchema {
  return nullable(nonNullOutput(document, type, selectionSet, overlays), isNonNullType(type));
}

function nonNullOutput(
  document: DocumentNode,
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  overlays: SchemaOverlays,
): JsonSchema {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return { type: 'array', items: outputSchema(document, inner.ofType, selectionSet, overlays) };
  const named = getNamedType(inner);
  if (overlays.types[named.name]) return overlays.types[named.name];
  if (isObjectType(named)) return objectSchema(document, named.name, named.getFields(), selectionSet!, overlays);
  return scalarSchema(named);
}

/** A leaf: a scalar, or an enum as its values (the REST strings; contract section 14, "Bounded ledgers"). */
function scalarSchema(type: GraphQLNamedType): JsonSchema {
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((value) => value.name) };
  return { ...SCALARS[type.name] };
}

/**
 * The schema of a REST request body: the input type's fields (a route's body type: its input
 * variable's, or one made of its body's variables). It says what the server does (contract
 * section 18): a closed body (the policy bodies, an organization's change) refuses unknown fields
 * with 400, so its schema has `additionalProperties: false`; an open one (an organization's
 * create, a webhook endpoint's) drops them, so its schema leaves `additionalProperties` unset, at
 * every level.
 * openapi-typescript generates closed types either way, so a client still catches a typo.
 */
export function requestSchema(type: GraphQLInputObjectType, overlays: SchemaOverlays, body: 'closed' | 'open'): JsonSchema {
  return inputObjectSchema(type.name, type.getFields(), overlays, body);
}

function inputObjectSchema(
  typeName: string,
  fields: Record<string, GraphQLInputField>,
  overlays: SchemaOverlays,
  body: 'closed' | 'open',
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(fields)) {
    if (isNonNullType(field.type)) required.push(field.name);
    properties[field.name] = {
      ...inputSchema(field.type, field, overlays, body),
      ...described(field.description),
      ...overlays.fields[`${typeName}.${field.name}`],
    };
  }
  return {
    type: 'object',
    ...(required.length ? { required } : {}),
    properties,
    ...(body === 'closed' ? { additionalProperties: false } : {}),
  };
}

function inputSchema(
  type: GraphQLInputType,
  field: GraphQLInputField | undefined,
  overlays: SchemaOverlays,
  body: 'closed' | 'open',
): JsonSchema {
  const inner = isNonNullType(type) ? type.ofType : type;
  let schema: JsonSchema;
  if (isListType(inner)) {
    const maxItems = (field?.extensions as { maxItems?: number } | undefined)?.maxItems ?? DEFAULT_MAX_ITEMS;
    schema = { type: 'array', maxItems, items: inputSchema(inner.ofType, undefined, overlays, body) };
  } else {
    const named = getNamedType(inner);
    if (overlays.types[named.name]) schema = overlays.types[named.name];
    else if (isInputObjectType(named)) schema = inputObjectSchema(named.name, named.getFields(), overlays, body);
    else schema = scalarSchema(named);
  }
  return nullable(schema, isNonNullType(type));
}

/** A nullable value: `null` added to its type (and to its values, an enum's), or a `oneOf` with null for a component. */
function nullable(schema: JsonSchema, nonNull: boolean): JsonSchema {
  if (nonNull) return schema;
  if (typeof schema.type === 'string') {
    return {
      ...schema,
      type: [schema.type, 'null'],
      ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}),
    };
  }
  return { oneOf: [schema, { type: 'null' }] };
}

/** GraphQL descriptions become the property's description; a `YYYY-MM-DD` one is a date. */
function described(description: string | null | undefined): JsonSchema {
  if (!description) return {};
  return description.startsWith('YYYY-MM-DD') ? { description, format: 'date' } : { description };
}
