import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FieldCipher } from '../../src/sensitive/field-cipher.js';

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
