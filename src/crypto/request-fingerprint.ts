import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { configure } from 'safe-stable-stringify';

/** Canonical JSON; past 32 levels a value is summarised, never walked (a body may nest 5,000 deep). */
const stringify = configure({ maximumDepth: 32 });

/**
 * Fingerprints of request bodies, to tell a retry (same body) from a reused Idempotency-Key
 * (another body). A body may carry a cvc, a tax id or an account number, whose few possible
 * values an unkeyed hash would give away to anyone holding the table: so the fingerprint is an
 * HMAC-SHA256 under a key derived (HKDF) from DATA_ENCRYPTION_KEY, never stored, never logged.
 * Keys retired by a rotation still match fingerprints made before it.
 */
export class RequestFingerprints {
  private readonly keys: Buffer[];

  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    this.keys = [currentKey, ...previousKeys].map((key) =>
      Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'org-policy-service idempotency fingerprint', 32)),
    );
  }

  /** Key order and whitespace do not make a different request. */
  of(request: unknown): string {
    return this.with(this.keys[0], request);
  }

  matches(request: unknown, stored: string): boolean {
    const expected = Buffer.from(stored);
    return this.keys.some((key) => {
      const actual = Buffer.from(this.with(key, request));
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    });
  }

  private with(key: Buffer, request: unknown): string {
    return createHmac('sha256', key)
      .update(stringify(request) ?? 'null')
      .digest('hex');
  }
}
