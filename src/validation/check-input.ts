import {
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { FieldError } from '../graphql/errors.js';
import { variableErrors } from '../graphql/variables.js';
import { ruleErrors } from './validate-input.js';

/**
 * Everything wrong with an operation's variables, all at once, before any resolver runs:
 * type errors from GraphQL coercion, then the input rules on whatever did coerce. A field
 * with a type error is not judged again by the rules, so each problem is reported once.
 * REST and `/graphql` both call this, so the same body gets the same list either way.
 */
export async function inputErrors(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): Promise<FieldError[]> {
  const typeErrors = variableErrors(schema, operation, variables);
  const reported = new Set(typeErrors.map((error) => error.path));
  const errors = [...typeErrors];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    const value = variables?.[name];
    if (!type || reported.has(name) || typeof value !== 'object' || value === null) continue;
    const instance = toInstance(value, type, '', reported);
    for (const error of await ruleErrors(instance)) {
      if (![...reported].some((path) => error.path === path || error.path.startsWith(`${path}.`) || error.path.startsWith(`${path}[`))) {
        errors.push(error);
      }
    }
  }
  return errors;
}

/** Input classes by GraphQL type name, so the rules declared on them can run on plain values. */
let classes: Map<string, Function> | undefined;
function inputClass(name: string): Function | undefined {
  classes ??= new Map(getMetadataStorage().inputTypes.map((type) => [type.name, type.target]));
  return classes.get(name);
}

/** The value as instances of its input classes, leaving out what already failed to coerce. */
function toInstance(value: unknown, type: GraphQLInputType, path: string, skip: Set<string>): unknown {
  if (skip.has(path) && path !== '') return undefined;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    return Array.isArray(value) ? value.map((item, index) => toInstance(item, inner.ofType, `${path}[${index}]`, skip)) : undefined;
  }
  if (!isInputObjectType(inner)) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const target = inputClass(inner.name);
  const instance = target ? Object.create(target.prototype) : {};
  const fields = inner.getFields();
  for (const [key, item] of Object.entries(value)) {
    if (!Object.hasOwn(fields, key)) continue;
    const converted = toInstance(item, fields[key].type, path ? `${path}.${key}` : key, skip);
    if (converted !== undefined) instance[key] = converted;
  }
  return instance;
}
