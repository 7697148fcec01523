import {
  coerceInputValue,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { FieldError } from '../errors/errors.js';
import { childNodes, inputNode, variableTypes, type InputNode } from './walk-input.js';

/**
 * Checks an operation's variables the way GraphQL will coerce them, but reports every problem
 * with a path in request-body terms (`owners[1].ownership`) and a message that never repeats
 * the value (it may be a secret), instead of graphql-js's first-error texts that quote it.
 * Lists must be JSON arrays: the single-value-to-list coercion hides client mistakes.
 */
export function variableErrors(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  for (const { name, type, definition } of variableTypes(schema, operation)) {
    const value = variables?.[name];
    if (value === undefined && (definition.defaultValue || !isNonNullType(type))) continue;
    const found: FieldError[] = [];
    strictLists(inputNode(value, type), found);
    if (found.length === 0) {
      coerceInputValue(value, type, (path, invalid, error) => found.push(describe(type, [...path], invalid, error.message)));
    }
    errors.push(...found.map((error) => ({ ...error, path: error.path || name })));
  }
  return errors;
}

export function formatPath(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment),
    '',
  );
}

function describe(root: GraphQLInputType, path: Array<string | number>, invalid: unknown, message: string): FieldError {
  const unknownField = /^Field "([^"]+)" is not defined by type/.exec(message);
  if (unknownField) return { path: formatPath([...path, unknownField[1]]), message: 'is not a known field' };
  const missingField = /^Field "([^"]+)" of required type "[^"]+" was not provided/.exec(message);
  if (missingField) return { path: formatPath([...path, missingField[1]]), message: 'is required' };
  if (invalid === undefined) return { path: formatPath(path), message: 'is required' };
  if (invalid === null) return { path: formatPath(path), message: 'must not be null' };
  const expected = typeAt(root, path);
  return { path: formatPath(path), message: `must be ${expected ? article(expected) : 'a valid value'}` };
}

/** Reports non-array values where a list is declared (GraphQL alone would wrap them). */
function strictLists(node: InputNode, found: FieldError[]): void {
  if (node.value === null || node.value === undefined) return;
  if (isListType(node.type) && !Array.isArray(node.value)) {
    found.push({ path: node.path, message: 'must be a list' });
    return;
  }
  for (const child of childNodes(node)) strictLists(child, found);
}

function typeAt(root: GraphQLInputType, path: Array<string | number>): GraphQLInputType | undefined {
  let type: GraphQLInputType | undefined = root;
  for (const segment of path) {
    if (!type) return undefined;
    const inner: GraphQLInputType = isNonNullType(type) ? type.ofType : type;
    if (typeof segment === 'number') type = isListType(inner) ? inner.ofType : undefined;
    else type = isInputObjectType(inner) ? inner.getFields()[segment]?.type : undefined;
  }
  return type;
}

const NAMES: Record<string, string> = {
  String: 'a string',
  ID: 'a string',
  Int: 'an integer',
  Float: 'a number',
  Boolean: 'a boolean',
  SafeInt: 'an integer between -(2^53 - 1) and 2^53 - 1',
  JSONObject: 'a JSON object',
};

/** What a value of `type` is, after "must be": an enum (a closed set) names its values, as REST documents them. */
function article(type: GraphQLInputType): string {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return 'a list';
  const named = getNamedType(inner);
  if (isEnumType(named))
    return `one of ${named
      .getValues()
      .map((value) => value.name)
      .join(', ')}`;
  return NAMES[named.name] ?? (isInputObjectType(named) ? 'an object' : `a ${named.name}`);
}
