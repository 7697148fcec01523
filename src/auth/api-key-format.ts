import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * An API key's text (contract section 20), pure: `opk_live_` (production) or `opk_test_`, 32
 * random base62 characters, then a 6-character base62 CRC-32 of everything before it. The
 * checksum is GitHub's idea (its tokens' last six characters): a typo or a truncated paste is
 * refused before any database lookup, and a secret scanner can tell a real key from a string
 * that looks like one. Only a keyed hash of a key is ever stored (`apiKeyHasher`).
 */

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_MODES = { live: 'opk_live_', test: 'opk_test_' } as const;
export type ApiKeyMode = keyof typeof API_KEY_MODES;
const RANDOM_CHARACTERS = 32;
const CHECKSUM_CHARACTERS = 6;
const KEY_LENGTH = API_KEY_MODES.live.length + RANDOM_CHARACTERS + CHECKSUM_CHARACTERS;
/** The shown part of a key (its `prefix`): the mode and 7 random characters, enough to tell keys apart in a list. */
const PREFIX_LENGTH = 16;
const BASE62 = /^[0-9A-Za-z]+$/;

/** `value` (0 to 2^32 - 1) in base62, left-padded to `width` characters (62^6 > 2^32). */
function base62(value: number, width: number): string {
  let text = '';
  for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) text = ALPHABET[rest % 62] + text;
  return text.padStart(width, '0');
}

/** The checksum of a key's text before it: CRC-32 of its UTF-8 bytes, in 6 base62 characters. */
export function checksumOf(text: string): string {
  return base62(crc32(text), CHECKSUM_CHARACTERS);
}

/**
 * `count` characters drawn uniformly from the alphabet: bytes of 248 or more (the largest multiple
 * of 62 that fits a byte) are drawn again, so that no character is likelier than another.
 */
function randomBase62(count: number): string {
  let text = '';
  while (text.length < count) {
    for (const byte of randomBytes(count)) {
      if (byte < 248 && text.length < count) text += ALPHABET[byte % 62];
    }
  }
  return text;
}

/** A new key: shown to its creator once, never stored. */
export function newApiKey(mode: ApiKeyMode): string {
  const body = API_KEY_MODES[mode] + randomBase62(RANDOM_CHARACTERS);
  return body + checksumOf(body);
}

/** Whether a bearer credential is meant as an API key (else it is taken for a JWT). */
export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith('opk_');
}

/**
 * The key's mode and shown prefix when `candidate` is well formed (a mode's start, 32 base62
 * characters, the checksum of both), else null: nothing to look up.
 */
export function parseApiKey(candidate: string): { mode: ApiKeyMode; prefix: string } | null {
  if (candidate.length !== KEY_LENGTH) return null;
  const mode = (Object.keys(API_KEY_MODES) as ApiKeyMode[]).find((name) => candidate.startsWith(API_KEY_MODES[name]));
  if (!mode) return null;
  const random = candidate.slice(API_KEY_MODES[mode].length);
  if (!BASE62.test(random)) return null;
  const body = candidate.slice(0, -CHECKSUM_CHARACTERS);
  if (checksumOf(body) !== candidate.slice(-CHECKSUM_CHARACTERS)) return null;
  return { mode, prefix: candidate.slice(0, PREFIX_LENGTH) };
}

/**
 * The stored form of a key: HMAC-SHA-256 under a key derived from DATA_ENCRYPTION_KEY (HKDF, its
 * own label), hex. Keyed, so a copy of the table alone cannot be searched against guesses; a
 * key has 190 random bits, so one hash per key (no salt, no slow hash) suffices and a lookup is one
 * index probe.
 */
export function apiKeyHasher(dataEncryptionKey: Buffer): (key: string) => string {
  const secret = Buffer.from(hkdfSync('sha256', dataEncryptionKey, Buffer.alloc(0), 'org-policy api key hash', 32));
  return (key) => createHmac('sha256', secret).update(key).digest('hex');
}
