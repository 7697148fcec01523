import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { badUserInput, notFound } from '../../src/errors/errors.js';
import { safeError, withoutValues } from '../../src/errors/safe-errors.js';

describe('withoutValues', () => {
  it.each([
    ['Expected value of type "String", found 4111111111111111.', 'Expected value of type "String", found another value.'],
    [
      'Expected value of type "String", found 123; String cannot represent a non string value: 123',
      'Expected value of type "String", found another value.',
    ],
    [
      'Variable "$input" got invalid value { cvc: 1234 } at "input.cvc"; String cannot represent a non string value: 1234',
      'Variable "$input" has an invalid value.',
    ],
    ['String cannot represent a non string value: 987654321', 'String cannot represent a non string value.'],
    [
      'Enum "CancellationReason" cannot represent non-enum value: "insured_requst". Did you mean the enum value "insured_request"?',
      'Enum "CancellationReason" cannot represent non-enum value.',
    ],
    [
      'Value "insured_requst" does not exist in "CancellationReason" enum. Did you mean the enum value "insured_request"?',
      'The value does not exist in "CancellationReason" enum.',
    ],
    ['Cannot query field "nope" on type "Query".', 'Cannot query field "nope" on type "Query".'],
    [`Unknown operation named "Op${'x'.repeat(100_000)}".`, `Unknown operation named "Op${'x'.repeat(98)}…".`],
  ])('turns %j into %j', (message, safe) => {
    expect(withoutValues(message)).toBe(safe);
  });
});

describe('safeError', () => {
  it('keeps our own errors with their codes and field lists', () => {
    const { safe, unexpected } = safeError(badUserInput([{ path: 'a', message: 'is required' }]));
    expect(unexpected).toBe(false);
    expect(safe.extensions).toEqual({ code: 'BAD_USER_INPUT', errors: [{ path: 'a', message: 'is required' }] });
    expect(safeError(notFound('Policy not found.')).safe).toMatchObject({
      message: 'Policy not found.',
      extensions: { code: 'NOT_FOUND' },
    });
  });

  it('hides anything unexpected behind a bare internal error', () => {
    const cause = new Error('insert into "owner" values (\'123-45-6789\') violates something');
    cause.stack = 'at secret.ts:1';
    const { safe, unexpected } = safeError(new GraphQLError(cause.message, { originalError: cause }));
    expect(unexpected).toBe(true);
    expect(safe).toEqual({ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  });

  it("treats a null for a non-null field (an execution error with a path and no cause) as the service's fault", () => {
    const { safe, unexpected } = safeError(
      new GraphQLError('Cannot return null for non-nullable field Coverage.reimbursementRate.', {
        path: ['policy', 'coverage', 'reimbursementRate'],
      }),
    );
    expect(unexpected).toBe(true);
    expect(safe.extensions.code).toBe('INTERNAL_SERVER_ERROR');
    expect(safeError(new GraphQLError('Cannot query field "nope" on type "Query".')).safe.extensions.code).toBe(
      'GRAPHQL_VALIDATION_FAILED',
    );
  });

  it('reports a lost database as UNAVAILABLE, for the outage log to count rather than as an unexpected error', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { safe, unexpected, databaseAway } = safeError(new GraphQLError(cause.message, { originalError: cause }));
    expect(safe.extensions.code).toBe('UNAVAILABLE');
    expect({ unexpected, databaseAway }).toEqual({ unexpected: false, databaseAway: true });
  });
});
