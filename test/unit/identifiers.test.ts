import { describe, expect, it } from 'vitest';
import { isUuid, parsePolicyNumber } from '../../src/values/identifiers.js';

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
