import {
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLNonNull,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from 'graphql';

/**
 * The one walk over a value against its GraphQL input type, shared by every pass of the input
 * pipeline (shape, list strictness, rules, REST body mapping): a node is a value with its type
 * (non-null stripped), its path in request-body terms (`owners[1].address.city`) and the
 * input field it sits in; `childNodes` steps into a list's items or an input object's known
 * fields. Each pass decides what to do at a node and whether to step further.
 */
/** An input type that is not non-null (the node records nullability apart). */
export type NullableInputType = Exclude<GraphQLInputType, GraphQLNonNull<never>>;

export interface InputNode {
  value: unknown;
  type: NullableInputType;
  /** Nullable: the type allows null here. */
  nullable: boolean;
  path: string;
  field?: GraphQLInputField;
}

export function inputNode(value: unknown, type: GraphQLInputType, path = '', field?: GraphQLInputField): InputNode {
  const nullable = !isNonNullType(type);
  return { value, type: isNonNullType(type) ? type.ofType : type, nullable, path, field };
}

/** A plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The nodes one step below: each item of a list given as an array, each own property of an
 * input object given as an object that names one of its fields. Nothing for leaves, and
 * nothing where the value does not have the type's shape (the passes report that).
 */
export function childNodes(node: InputNode): InputNode[] {
  const { value, type, path } = node;
  if (isListType(type)) {
    return Array.isArray(value) ? value.map((item, index) => inputNode(item, type.ofType, `${path}[${index}]`)) : [];
  }
  if (isInputObjectType(type) && isPlainObject(value)) {
    const fields = type.getFields();
    return Object.entries(value)
      .filter(([key]) => Object.hasOwn(fields, key))
      .map(([key, item]) => inputNode(item, fields[key].type, path ? `${path}.${key}` : key, fields[key]));
  }
  return [];
}

/** An operation's variables with their input types (a type the schema lacks is left out). */
export function variableTypes(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): Array<{ name: string; type: GraphQLInputType; definition: VariableDefinitionNode }> {
  return (operation.variableDefinitions ?? []).flatMap((definition) => {
    // graphql-js types typeFromAST's node as its own AST union; any type node of a variable is one.
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    return type ? [{ name: definition.variable.name.value, type, definition }] : [];
  });
}
