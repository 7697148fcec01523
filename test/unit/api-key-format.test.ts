import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiKeyHasher, checksumOf, looksLikeApiKey, newApiKey, parseApiKey } from '../../src/auth/api-key-format.js';

/**
 * Contract section 20's key format against a model written here: `opk_live_` / `opk_test_`, 32
 * base62 characters, a 6-character base62 CRC-32 of everything before it (CRC-32 as IEEE 802.3
 * defines it, bit by bit, below; base62 digits 0-9, A-Z, a-z).
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function crc32Model(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function base62Model(value: number): string {
  const digits: string[] = [];
  for (let rest = BigInt(value); digits.length < 6; rest /= 62n) digits.unshift(ALPHABET[Number(rest % 62n)]);
  return digits.join('');
}

const KEY = /^opk_(live|test)_[0-9A-Za-z]{32}[0-9A-Za-z]{6}$/;

describe('API key format (contract section 20)', () => {
  it('makes keys of the documented shape whose last six characters are the checksum of the rest', () => {
    for (const mode of ['live', 'test'] as const) {
      const key = newApiKey(mode);
      expect(key).toMatch(KEY);
      expect(key.startsWith(`opk_${mode}_`)).toBe(true);
      expect(key.slice(-6)).toBe(base62Model(crc32Model(key.slice(0, -6))));
      expect(parseApiKey(key)).toEqual({ mode, prefix: key.slice(0, 16) });
      expect(looksLikeApiKey(key)).toBe(true);
    }
  });

  it('computes the checksum as the model does, for any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        expect(checksumOf(text)).toBe(base62Model(crc32Model(text)));
      }),
    );
  });

  it('refuses every single-character typo and every swap of two neighbours, without a lookup', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('live' as const, 'test' as const),
        fc.nat({ max: 46 }),
        fc.constantFrom(...ALPHABET, '_', '-'),
        (mode, at, replacement) => {
          const key = newApiKey(mode);
          if (key[at] !== replacement) expect(parseApiKey(key.slice(0, at) + replacement + key.slice(at + 1))).toBeNull();
          if (at < 46 && key[at] !== key[at + 1]) {
            expect(parseApiKey(key.slice(0, at) + key[at + 1] + key[at] + key.slice(at + 2))).toBeNull();
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses what is not a key: cut short, one more character, another prefix, a JWT', () => {
    const key = newApiKey('test');
    for (const candidate of [key.slice(0, -1), `${key}0`, key.replace('opk_test_', 'opk_prod_'), 'eyJhbGciOiJIUzI1NiJ9.e30.x', ''])
      expect(parseApiKey(candidate)).toBeNull();
    expect(looksLikeApiKey('eyJhbGciOiJIUzI1NiJ9.e30.x')).toBe(false);
  });

  it('draws the random characters uniformly (no character of the alphabet favoured)', () => {
    const counts = new Map<string, number>();
    const keys = 4000;
    for (let i = 0; i < keys; i++)
      for (const character of newApiKey('live').slice(9, 41)) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 128,000 draws: about 2,065 each; a byte taken modulo 62 without rejection favours 0-9 and A-Z by 1/4.
    const expected = (keys * 32) / 62;
    for (const count of counts.values()) expect(Math.abs(count - expected) / expected).toBeLessThan(0.1);
  });

  it('hashes a key with a key of its own derived from DATA_ENCRYPTION_KEY: the same key the same hash, another data key another', () => {
    const key = newApiKey('live');
    const hash = apiKeyHasher(Buffer.alloc(32, 1));
    expect(hash(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hash(key)).toBe(apiKeyHasher(Buffer.alloc(32, 1))(key));
    expect(apiKeyHasher(Buffer.alloc(32, 2))(key)).not.toBe(hash(key));
    expect(hash(newApiKey('live'))).not.toBe(hash(key));
  });
});
