import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { needsPrincipal } from '../../src/auth/authenticate.js';

const operation = (query: string) =>
  parse(query).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;

describe('needsPrincipal', () => {
  it('lets only introspection-only queries through, and only while anonymous introspection is allowed (the developer pages)', () => {
    expect(needsPrincipal(operation('{ __schema { queryType { name } } }'), true)).toBe(false);
    expect(needsPrincipal(operation('{ __typename }'), true)).toBe(false);
    expect(needsPrincipal(operation('{ __schema { queryType { name } } }'), false)).toBe(true);
    expect(needsPrincipal(operation('{ __schema { types { name } } viewer { sub } }'), true)).toBe(true);
    expect(needsPrincipal(operation('{ ...F } fragment F on Query { __typename }'), true)).toBe(true);
    expect(needsPrincipal(operation('mutation { __typename }'), true)).toBe(true);
  });
});
