import { describe, expect, it } from 'vitest';
import { accessPredicate } from '../../src/auth/access-rule.js';

describe('accessPredicate', () => {
  it('is one predicate over the row, parameterised by org claim and sub', () => {
    expect(accessPredicate('o', { sub: 'alice', org: null })).toEqual({
      sql: '(?::uuid = any(o.path) or ?::text = any(o.owner_subs))',
      params: [null, 'alice'],
    });
  });
});
