import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** What is stored for one sensitive value: ciphertext and the id of the key that made it. */
export interface SealedValue {
  /** base64 of iv (12 bytes) | auth tag (16 bytes) | ciphertext */
  ciphertext: string;
  keyId: string;
}

/**
 * AES-256-GCM for values that must be encrypted at rest (owner tax ids, bank account
 * numbers). The key id, stored beside each value, is a fingerprint of the key, so keys can
 * rotate: decryption picks the key by id, encryption always uses the current one. The
 * associated data names the column, so a ciphertext copied into another column fails.
 */
export class FieldCipher {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;
  private readonly currentKey: Buffer;

  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    if (currentKey.length !== 32) throw new Error('a data encryption key must be 32 bytes');
    this.currentKeyId = FieldCipher.keyId(currentKey);
    this.currentKey = currentKey;
    for (const key of [currentKey, ...previousKeys]) this.keys.set(FieldCipher.keyId(key), key);
  }

  static keyId(key: Buffer): string {
    return createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  /** Seals text (as UTF-8) or bytes (a compressed kept answer, src/idempotency). */
  seal(plaintext: string | Buffer, column: string): SealedValue {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey, iv);
    cipher.setAAD(Buffer.from(column));
    const body = Buffer.concat([
      typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext),
      cipher.final(),
    ]);
    return {
      ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'),
      keyId: this.currentKeyId,
    };
  }

  open(sealed: SealedValue, column: string): string {
    return this.openBytes(sealed, column).toString('utf8');
  }

  openBytes(sealed: SealedValue, column: string): Buffer {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new Error(`no data encryption key with id ${sealed.keyId}`);
    const raw = Buffer.from(sealed.ciphertext, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(column));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
  }
}

/**
 * The only part of a sensitive number a response may carry: its last four characters, but never
 * more than half of it, so a short value is not given away whole (a 4-character account number
 * shows its last 2, a 6-character one its last 3).
 */
export function lastFour(value: string): string {
  return value.slice(-Math.min(4, Math.floor(value.length / 2)));
}
