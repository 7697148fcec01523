import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { authenticate, needsPrincipal } from '../../src/auth/authenticate.js';

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

describe('authenticate', () => {
  const verify = async () => {
    throw new Error('never called for a placeholder');
  };

  it('says what to do with the developer pages\' placeholder header, literally "Bearer <token>" (issue 25, F1)', async () => {
    for (const header of ['Bearer <token>', 'bearer  <token> ']) {
      const { principal, failure } = await authenticate(header, verify);
      expect(principal).toBeNull();
      expect(failure?.message).toBe(
        'Invalid token: the Authorization header still holds the placeholder <token>: replace <token> with a token (npm run -s token).',
      );
      expect(failure?.extensions.code).toBe('UNAUTHENTICATED');
    }
    // Any other malformed header keeps its own message.
    expect((await authenticate('Token abc', verify)).failure?.message).toBe(
      'Invalid token: the Authorization header must be "Bearer <token>".',
    );
  });
});
