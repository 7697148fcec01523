import { isInputObjectType, isListType, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { MAX_REPORTED_ERRORS, type FieldError } from '../errors/errors.js';
import { variableErrors } from './variables.js';
import { shapeErrors } from './input-shape.js';
import { ruleErrors } from './validate-input.js';
import { childNodes, inputNode, isPlainObject, variableTypes, type InputNode } from './walk-input.js';

/**
 * Everything wrong with an operation's variables, all at once, before any resolver runs, in
 * time linear in the input: first its shape (lists over their maximum and oversized JSON are
 * refused before anything walks them), then type errors from GraphQL coercion, then the input
 * rules on whatever did coerce. A field with a type error is not judged again by the rules, so
 * each problem is reported once. REST and `/graphql` both call this, so the same body gets the
 * same list either way. At most MAX_REPORTED_ERRORS are returned.
 */
export async function inputErrors(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): Promise<FieldError[]> {
  const definitions = variableTypes(schema, operation);
  // Paths are in request-body terms (`owners[30]`), the variable's own name only for itself.
  const shape = definitions.flatMap(({ name, type }) =>
    shapeErrors(variables?.[name], type, '').map((error) => ({ ...error, path: error.path || name })),
  );
  if (shape.length > 0) return shape.slice(0, MAX_REPORTED_ERRORS);

  const typeErrors = variableErrors(schema, operation, variables);
  const reported = new Set(typeErrors.map((error) => error.path));
  const errors = typeErrors.slice(0, MAX_REPORTED_ERRORS);
  for (const { name, type } of definitions) {
    const value = variables?.[name];
    if (errors.length >= MAX_REPORTED_ERRORS) break;
    if (reported.has(name) || typeof value !== 'object' || value === null) continue;
    const instance = toInstance(inputNode(value, type), reported);
    for (const error of await ruleErrors(instance)) {
      if (!withinReported(error.path, reported)) errors.push(error);
    }
  }
  return errors.slice(0, MAX_REPORTED_ERRORS);
}

/** Whether `path` or one of its ancestors (`a.b[2].c` -> `a`, `a.b`, `a.b[2]`) had a type error. */
function withinReported(path: string, reported: Set<string>): boolean {
  if (reported.has(path)) return true;
  for (let index = 0; index < path.length; index++) {
    if ((path[index] === '.' || path[index] === '[') && reported.has(path.slice(0, index))) return true;
  }
  return false;
}

/** Input classes by GraphQL type name, so the rules declared on them can run on plain values. */
type InputClass = { prototype: object };
let classes: Map<string, InputClass> | undefined;
function inputClass(name: string): InputClass | undefined {
  classes ??= new Map(getMetadataStorage().inputTypes.map((type) => [type.name, type.target]));
  return classes.get(name);
}

/** The value as instances of its input classes, leaving out what already failed to coerce. */
function toInstance(node: InputNode, skip: Set<string>): unknown {
  const { value, type, path } = node;
  if (skip.has(path) && path !== '') return undefined;
  if (isListType(type)) return Array.isArray(value) ? childNodes(node).map((item) => toInstance(item, skip)) : undefined;
  if (!isInputObjectType(type)) return value;
  if (!isPlainObject(value)) return undefined;
  const target = inputClass(type.name);
  const instance = target ? Object.create(target.prototype) : {};
  for (const child of childNodes(node)) {
    const converted = toInstance(child, skip);
    if (converted !== undefined && child.field) instance[child.field.name] = converted;
  }
  return instance;
}
