import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FieldCipher, lastFour } from '../../src/crypto/field-cipher.js';
import { RequestFingerprints } from '../../src/crypto/request-fingerprint.js';

describe('FieldCipher', () => {
  const key = randomBytes(32);

  it('round-trips and never stores the plaintext', () => {
    const cipher = new FieldCipher(key);
    const sealed = cipher.seal('000123456789', 'bank_account.account');
    expect(sealed.ciphertext).not.toContain('000123456789');
    expect(Buffer.from(sealed.ciphertext, 'base64').toString('latin1')).not.toContain('000123456789');
    expect(cipher.open(sealed, 'bank_account.account')).toBe('000123456789');
  });

  it('uses a fresh IV per value', () => {
    const cipher = new FieldCipher(key);
    expect(cipher.seal('same', 'c').ciphertext).not.toBe(cipher.seal('same', 'c').ciphertext);
  });

  it('binds a value to its column', () => {
    const cipher = new FieldCipher(key);
    const sealed = cipher.seal('123-45-6789', 'owner.tax_id');
    expect(() => cipher.open(sealed, 'bank_account.account')).toThrow();
  });

  it('opens values sealed with a previous key after rotation', () => {
    const old = new FieldCipher(key);
    const sealed = old.seal('secret', 'c');
    const rotated = new FieldCipher(randomBytes(32), [key]);
    expect(rotated.currentKeyId).not.toBe(sealed.keyId);
    expect(rotated.open(sealed, 'c')).toBe('secret');
  });
});

describe('lastFour', () => {
  it.each([
    ['000123456789', '6789'],
    ['12345678', '5678'],
    ['123456', '456'],
    ['9876', '76'],
  ])('shows at most four characters of %s and never more than half', (value, shown) => {
    expect(lastFour(value)).toBe(shown);
  });
});

describe('RequestFingerprints', () => {
  const key = randomBytes(32);

  it('is keyed: the same body gives another fingerprint under another key', () => {
    const body = { cvc: '123', petName: 'Rex' };
    expect(new RequestFingerprints(key).of(body)).not.toBe(new RequestFingerprints(randomBytes(32)).of(body));
  });

  it('ignores key order and still matches after a key rotation', () => {
    const before = new RequestFingerprints(key);
    const stored = before.of({ a: 1, b: 2 });
    const rotated = new RequestFingerprints(randomBytes(32), [key]);
    expect(rotated.matches({ b: 2, a: 1 }, stored)).toBe(true);
    expect(rotated.matches({ a: 1, b: 3 }, stored)).toBe(false);
  });

  it('does not walk a body nested thousands of levels deep', () => {
    const deep = JSON.parse(`${'['.repeat(5000)}1${']'.repeat(5000)}`);
    expect(new RequestFingerprints(key).of({ deep })).toMatch(/^[0-9a-f]{64}$/);
  });
});
