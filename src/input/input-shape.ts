import { isListType, isScalarType, type GraphQLInputField, type GraphQLInputType } from 'graphql';
import type { FieldError } from '../errors/errors.js';
import { childNodes, inputNode, type InputNode } from './walk-input.js';

/** A list with no declared maximum still has one: nothing a client sends is walked unbounded. */
export const DEFAULT_MAX_ITEMS = 100;

/** Bounds of a JSON scalar field (address extras): its size as JSON and how deeply it nests. */
export interface JsonBounds {
  maxBytes: number;
  maxDepth: number;
}

/** The bounds a JSON scalar gets when its field declares none. */
export const DEFAULT_JSON_BOUNDS: JsonBounds = { maxBytes: 2048, maxDepth: 3 };

/** What an input field declares (rules.ts puts it in the field's GraphQL extensions). */
interface ShapeExtensions {
  maxItems?: number;
  json?: JsonBounds;
}

/**
 * The cheap first pass over a request's input, before coercion and rules (spec section 12):
 * a list longer than its maximum is reported and its items are never walked, and a JSON value
 * that nests too deeply or is too large is reported without being walked further. Everything
 * after this pass then works on input of bounded size, so checking a body is linear in it.
 */
export function shapeErrors(value: unknown, type: GraphQLInputType, path: string, field?: GraphQLInputField): FieldError[] {
  return nodeShapeErrors(inputNode(value, type, path, field));
}

function nodeShapeErrors(node: InputNode): FieldError[] {
  const { value, type, path, field } = node;
  if (value === null || value === undefined) return [];
  const extensions = (field?.extensions ?? {}) as ShapeExtensions;
  if (isListType(type) && Array.isArray(value)) {
    const max = extensions.maxItems ?? DEFAULT_MAX_ITEMS;
    if (value.length > max) return [{ path, message: `must have at most ${max} items` }];
  } else if (isScalarType(type) && typeof value === 'object') {
    const problem = jsonProblem(value, extensions.json ?? DEFAULT_JSON_BOUNDS);
    return problem ? [{ path, message: problem }] : [];
  }
  return childNodes(node).flatMap(nodeShapeErrors);
}

/**
 * Property names that mean JavaScript's object machinery: code that walks the stored value
 * (MikroORM's validator read `value.constructor.name` and answered 500; security review 2, L1)
 * or merges it could take them for the real thing. No address needs them.
 */
const OBJECT_MACHINERY = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Why a JSON value breaks its bounds, or null. Depth is found with an explicit stack that stops
 * at the first container past the limit, so a value nested 5,000 deep costs a few steps and
 * never the call stack; only a value within the depth limit is serialised to measure its size.
 */
export function jsonProblem(value: unknown, bounds: JsonBounds): string | null {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { value: current, depth } = top;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > bounds.maxDepth) return `must not nest more than ${bounds.maxDepth} levels deep`;
    if (!Array.isArray(current) && Object.keys(current).some((key) => OBJECT_MACHINERY.has(key))) {
      return 'must not have a property named __proto__, constructor or prototype';
    }
    for (const item of Object.values(current)) stack.push({ value: item, depth: depth + 1 });
  }
  if (Buffer.byteLength(JSON.stringify(value)) > bounds.maxBytes) return `must be at most ${bounds.maxBytes} bytes as JSON`;
  return null;
}
