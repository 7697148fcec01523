import { describe, expect, it } from 'vitest';
import { changedKeys, mergePatch, patchedAddress, patchedFields } from '../../src/organizations/organization-patch.js';
import { ORGANIZATION_FIELDS_WRITE, type OrganizationFieldsWrite } from '../../src/organizations/organization.writes.js';
import { ifMatchVersion } from '../../src/rest/if-match.js';

describe('merge patch (RFC 7396)', () => {
  // The examples of RFC 7396, appendix A.
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('MergePatch(%j, %j) = %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });

  it('keeps "__proto__" an ordinary key', () => {
    const merged = mergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('a change to an organization', () => {
  // Every field null but those the cases use, so a field added to the write map needs no edit here.
  const stored: OrganizationFieldsWrite = {
    ...(Object.fromEntries(Object.keys(ORGANIZATION_FIELDS_WRITE).map((field) => [field, null])) as Record<
      keyof OrganizationFieldsWrite,
      null
    >),
    name: 'Short',
    description: 'd',
    logo: null,
    type: null,
    descriptor: null,
    legalName: 'Legal LLC',
    legalType: 'llc',
    taxId: '1',
    phone: null,
    email: 'a@example.com',
    website: null,
    address: { line1: '1 Main St', city: 'Springfield', suite: '4B' },
  };

  it('keeps what is absent, removes what is null, and sets name back to legalName when removed', () => {
    const next = patchedFields(stored, { email: null, legalName: 'New Legal LLC', name: null });
    expect(next).toEqual({ ...stored, email: null, legalName: 'New Legal LLC', name: 'New Legal LLC' });
    expect(changedKeys(stored, next, Object.keys(stored) as Array<keyof OrganizationFieldsWrite>).sort()).toEqual([
      'email',
      'legalName',
      'name',
    ]);
  });

  it('merges the address: named fields and additional ones alike, null removing; additionalFields null removes every extra', () => {
    expect(patchedAddress(stored.address, undefined)).toBe(stored.address);
    expect(patchedAddress(stored.address, null)).toBeNull();
    expect(patchedAddress(stored.address, { city: null, additionalFields: { suite: null, floor: 3 } })).toEqual({
      line1: '1 Main St',
      floor: 3,
    });
    expect(patchedAddress(stored.address, { country: 'US', additionalFields: null })).toEqual({
      line1: '1 Main St',
      city: 'Springfield',
      country: 'US',
    });
    expect(patchedAddress(null, { city: 'Boston' })).toEqual({ city: 'Boston' });
  });

  it("sees no change in the same values, whatever the order of an address's keys", () => {
    const next = patchedFields(stored, { name: 'Short', address: { city: 'Springfield' } });
    expect(changedKeys(stored, next, Object.keys(stored) as Array<keyof OrganizationFieldsWrite>)).toEqual([]);
    expect(changedKeys({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } }, ['a'])).toEqual([]);
  });
});

describe('If-Match', () => {
  it('reads a strong tag as the version, absent and * as no precondition', () => {
    expect(ifMatchVersion(undefined)).toBeNull();
    expect(ifMatchVersion('*')).toBeNull();
    expect(ifMatchVersion('"3"')).toBe(3);
    expect(ifMatchVersion(' "12" ')).toBe(12);
    expect(ifMatchVersion('"3", "3"')).toBe(3);
  });

  it.each(['3', 'W/"3"', '"0"', '"03"', '"abc"', '', '"2", "3"', '"99999999999"', '"3'])(
    'refuses %j with PRECONDITION_FAILED',
    (header) => {
      expect(() => ifMatchVersion(header)).toThrow(
        expect.objectContaining({ extensions: expect.objectContaining({ code: 'PRECONDITION_FAILED' }) }),
      );
    },
  );
});
