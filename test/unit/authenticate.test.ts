import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { needsPrincipal } from '../../src/auth/authenticate.js';

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
