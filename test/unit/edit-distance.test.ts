import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../../src/values/edit-distance.js';

describe('editDistance (optimal string alignment, case-insensitive)', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('petName', 'petNme')).toBe(1);
    expect(editDistance('petName', 'petNamex')).toBe(1);
  });

  it('counts a swap of two adjacent letters as one edit', () => {
    expect(editDistance('ownerFirstname', 'ownerFirstanme')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
  });

  it('compares letters case-insensitively', () => {
    expect(editDistance('petDob', 'petDOB')).toBe(0);
    expect(editDistance('INTERNALid', 'internalID')).toBe(0);
  });
});

describe('closestName', () => {
  const fields = ['organizationId', 'internalID', 'petName', 'petDOB', 'ownerDOB', 'number', 'cvc'];

  it('suggests a field within two edits', () => {
    expect(closestName('organisationId', fields)).toBe('organizationId');
    expect(closestName('petDob', fields)).toBe('petDOB');
    expect(closestName('internalId', fields)).toBe('internalID');
    expect(closestName('nmuber', fields)).toBe('number');
  });

  it('suggests nothing beyond two edits', () => {
    expect(closestName('emial', fields)).toBeNull();
    expect(closestName('colour', fields)).toBeNull();
    expect(closestName('petNameXYZ', fields)).toBeNull();
  });

  it('prefers the closest', () => {
    expect(closestName('petDOBB', ['ownerDOB', 'petDOB'])).toBe('petDOB');
  });
});
