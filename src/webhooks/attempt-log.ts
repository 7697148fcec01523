/**
 * What an attempt's row in the attempt log (contract section 22) says of its outcome, decided
 * without a network or a database (test/unit/attempt-log.test.ts): the class of the error that
 * ended an attempt without an answer, and the answer's first 4 KB as text. delivery-post.ts
 * calls these, delivery-record.ts writes what they gave.
 */

/** Why no answer came (or the answer broke off), as the attempt log names it. */
export const ATTEMPT_ERRORS = ['timeout', 'connection_refused', 'connection_reset', 'dns', 'tls', 'refused_address'] as const;
export type AttemptError = (typeof ATTEMPT_ERRORS)[number];

/** At most this many bytes of an answer are kept (4 KB), cut on a UTF-8 boundary. */
export const RESPONSE_BODY_KEPT = 4096;

/** The code of our own whole-attempt timeout (delivery-post.ts), Node's own for a connect timeout. */
export const TIMEOUT_CODE = 'ETIMEDOUT';
/** The code of the delivery's lookup when a name resolves to no public address (webhook-url.ts). */
export const NOT_PUBLIC_CODE = 'EADDRNOTPUBLIC';

const CLASS_OF_CODE: Readonly<Record<string, AttemptError>> = {
  ETIMEDOUT: 'timeout',
  ESOCKETTIMEDOUT: 'timeout',
  // No connection could be opened: nothing listens, or nothing on the way leads there.
  ECONNREFUSED: 'connection_refused',
  EHOSTUNREACH: 'connection_refused',
  ENETUNREACH: 'connection_refused',
  EHOSTDOWN: 'connection_refused',
  ENETDOWN: 'connection_refused',
  // The connection was opened and then broken by the other side (Node's "socket hang up" and "aborted" are ECONNRESET).
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  ECONNABORTED: 'connection_reset',
  // getaddrinfo (dns.lookup) and the resolver's own codes.
  ENOTFOUND: 'dns',
  ENODATA: 'dns',
  ESERVFAIL: 'dns',
  [NOT_PUBLIC_CODE]: 'refused_address',
};

/** OpenSSL's certificate verification codes, as Node gives them on a TLS error (no prefix to match). */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CRL_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);

/** The error's `code`; for an AggregateError without one (a connection tried on several addresses), its first error's. */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && code !== '') return code;
  const { errors } = error as { errors?: unknown };
  return Array.isArray(errors) ? codeOf(errors[0]) : undefined;
}

/**
 * The class of the error that ended an attempt, from its Node error code; null for a code that
 * is none of the classes (the delivery's `lastError` still has its message).
 */
export function attemptErrorOf(error: unknown): AttemptError | null {
  const code = codeOf(error);
  if (code === undefined) return null;
  const known = CLASS_OF_CODE[code];
  if (known) return known;
  if (code.startsWith('EAI_')) return 'dns';
  if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || CERTIFICATE_CODES.has(code)) return 'tls';
  return null;
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** The first `limit` bytes at most, cut before a character that would not fit whole. */
function utf8Prefix(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.length <= limit) return bytes;
  let end = limit;
  // A character is at most 4 bytes: at most 3 continuation bytes to step back over.
  for (let back = 0; back < 3 && end > 0 && isContinuation(bytes[end]); back++) end--;
  return bytes.subarray(0, end);
}

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/**
 * The first RESPONSE_BODY_KEPT bytes of an answer as text: cut on a UTF-8 boundary, decoded as
 * UTF-8 (a byte that is not UTF-8 becomes U+FFFD), with NUL (which PostgreSQL text cannot hold)
 * as U+FFFD too; cut again if those replacements made it longer, so it never exceeds the limit.
 * `bytes` may be longer than the limit (the caller keeps a byte more, to see where a character ends).
 */
export function responseBodyText(bytes: Uint8Array, limit = RESPONSE_BODY_KEPT): string {
  const text = decoder.decode(utf8Prefix(bytes, limit)).replaceAll('\u0000', '\uFFFD');
  const encoded = encoder.encode(text);
  return encoded.length <= limit ? text : decoder.decode(utf8Prefix(encoded, limit));
}

/** Keeps the first bytes of an answer as they arrive: at most `limit` + 1 (the byte after the limit shows whether a character goes past it). */
export class ResponsePrefix {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  constructor(private readonly limit = RESPONSE_BODY_KEPT) {}

  add(chunk: Buffer): void {
    const room = this.limit + 1 - this.length;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.length += kept.length;
  }

  text(): string {
    return responseBodyText(Buffer.concat(this.chunks, this.length), this.limit);
  }
}
