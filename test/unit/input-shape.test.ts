import { GraphQLInputObjectType, GraphQLList, GraphQLString } from 'graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { describe, expect, it } from 'vitest';
import { jsonProblem, shapeErrors } from '../../src/input/input-shape.js';

const Item = new GraphQLInputObjectType({ name: 'Item', fields: { name: { type: GraphQLString } } });
const Input = new GraphQLInputObjectType({
  name: 'Input',
  fields: {
    items: { type: new GraphQLList(Item), extensions: { maxItems: 3 } },
    free: { type: new GraphQLList(GraphQLString) },
    extra: { type: GraphQLJSONObject, extensions: { json: { maxBytes: 64, maxDepth: 2 } } },
  },
});

describe('input shape', () => {
  it('refuses a list over its declared maximum without walking its items', () => {
    const items = new Proxy(Array(1000).fill({}), {
      get: (target, key) =>
        key === 'length' || key === Symbol.iterator || key === 'constructor'
          ? Reflect.get(target, key)
          : (() => {
              throw new Error(`walked ${String(key)}`);
            })(),
    });
    expect(shapeErrors({ items }, Input, '')).toEqual([{ path: 'items', message: 'must have at most 3 items' }]);
  });

  it('gives lists without a declared maximum one of 100', () => {
    expect(shapeErrors({ free: Array(101).fill('x') }, Input, '')).toEqual([{ path: 'free', message: 'must have at most 100 items' }]);
    expect(shapeErrors({ free: Array(100).fill('x') }, Input, '')).toEqual([]);
  });

  it('bounds JSON values by depth and size', () => {
    expect(shapeErrors({ extra: { a: { b: 1 } } }, Input, '')).toEqual([]);
    expect(shapeErrors({ extra: { a: { b: {} } } }, Input, '')).toEqual([
      { path: 'extra', message: 'must not nest more than 2 levels deep' },
    ]);
    expect(shapeErrors({ extra: { a: 'x'.repeat(100) } }, Input, '')).toEqual([
      { path: 'extra', message: 'must be at most 64 bytes as JSON' },
    ]);
  });

  it('refuses the property names of object machinery at any depth, as parsed JSON carries them', () => {
    const bounds = { maxBytes: 2048, maxDepth: 3 };
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      expect(jsonProblem(JSON.parse(`{"line1":"x","${key}":"x"}`), bounds)).toBe(
        'must not have a property named __proto__, constructor or prototype',
      );
      expect(jsonProblem(JSON.parse(`{"a":{"${key}":{}}}`), bounds)).toBe(
        'must not have a property named __proto__, constructor or prototype',
      );
    }
    expect(jsonProblem({ toString: 'x', hasOwnProperty: 'y', Constructor: 'z' }, bounds)).toBeNull();
  });

  it('finds excess depth in a value nested 100,000 deep without recursion', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}1${']'.repeat(100_000)}`);
    expect(jsonProblem({ deep }, { maxBytes: 2048, maxDepth: 3 })).toBe('must not nest more than 3 levels deep');
  });
});
