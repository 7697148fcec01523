import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { needsPrincipal } from '../../src/auth/authenticate.js';
import { accessPredicate } from '../../src/auth/access-rule.js';
import { isUuid, parsePolicyNumber } from '../../src/values/identifiers.js';

const operation = (query: string) =>
  parse(query).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;

describe('needsPrincipal', () => {
  it('lets only introspection-only queries through, and only outside production', () => {
    expect(needsPrincipal(operation('{ __schema { queryType { name } } }'), false)).toBe(false);
    expect(needsPrincipal(operation('{ __typename }'), false)).toBe(false);
    expect(needsPrincipal(operation('{ __schema { queryType { name } } }'), true)).toBe(true);
    expect(needsPrincipal(operation('{ __schema { types { name } } viewer { sub } }'), false)).toBe(true);
    expect(needsPrincipal(operation('{ ...F } fragment F on Query { __typename }'), false)).toBe(true);
    expect(needsPrincipal(operation('mutation { __typename }'), false)).toBe(true);
  });
});

describe('accessPredicate', () => {
  it('is one predicate over the row, parameterised by org claim and sub', () => {
    expect(accessPredicate('o', { sub: 'alice', org: null })).toEqual({
      sql: '(?::uuid = any(o.path) or ?::text = any(o.owner_subs))',
      params: [null, 'alice'],
    });
  });
});

describe('identifiers', () => {
  it('recognises UUIDs', () => {
    expect(isUuid('0b6f7c1e-6a3b-4f0e-9a59-2f1d8c1e2a3b')).toBe(true);
    expect(isUuid('0b6f7c1e6a3b4f0e9a592f1d8c1e2a3b')).toBe(false);
    expect(isUuid("' or 1=1 --")).toBe(false);
  });

  it.each([
    ['1', 1],
    ['9007199254740991', 9007199254740991],
    ['9007199254740992', null],
    ['0', null],
    ['-1', null],
    ['01', null],
    ['1.0', null],
    ['1e3', null],
    ['abc', null],
    ['99999999999999999999', null],
  ])('reads policy number %j as %j', (segment, number) => {
    expect(parsePolicyNumber(segment)).toBe(number);
  });
});
