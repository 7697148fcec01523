import { createRemoteJWKSet, errors, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import type { KeyObject } from 'node:crypto';
import { isUuid } from '../values/identifiers.js';
import { SERVICE_SUB, type Principal } from './principal.js';

export interface VerificationKeys {
  /** HS256 shared secret (configured, or the development secret). */
  secret?: Uint8Array;
  publicKey?: { key: KeyObject; algorithms: string[] };
  jwksUrl?: URL;
  issuer?: string;
  audience?: string;
  /** Tokens living longer than this (`exp` - `iat`) are refused; a stolen token expires in time. */
  maxLifetimeSeconds?: number;
}

/** Why a token was refused; `description` is safe to send back in `WWW-Authenticate`. */
export class TokenRejected extends Error {
  override name = 'TokenRejected';
  constructor(readonly description: string) {
    super(description);
  }
}

export type TokenVerifier = (token: string) => Promise<Principal>;

const JWKS_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

/**
 * Verifies a bearer JWT against the configured keys. The algorithm allow-list comes from the
 * keys themselves, so `alg: none` and algorithm confusion (an HS256 token signed with a public
 * key) are refused by construction; `exp` and `sub` are required.
 */
export function createTokenVerifier(keys: VerificationKeys): TokenVerifier {
  const jwks = keys.jwksUrl ? createRemoteJWKSet(keys.jwksUrl) : undefined;
  const algorithms = [...(keys.secret ? ['HS256'] : []), ...(keys.publicKey?.algorithms ?? []), ...(jwks ? JWKS_ALGORITHMS : [])];
  if (algorithms.length === 0) throw new Error('no token verification key configured');

  const keyFor = async (header: JWTHeaderParameters, token: { payload: string; signature: string }) => {
    if (header.alg === 'HS256' && keys.secret) return keys.secret;
    if (keys.publicKey?.algorithms.includes(header.alg)) return keys.publicKey.key;
    if (jwks) return jwks(header, token);
    throw new TokenRejected('unsupported token algorithm');
  };

  const verified = new VerifiedTokens();
  return async (token) => {
    const known = verified.get(token);
    if (known) return known;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keyFor as never, {
        algorithms,
        issuer: keys.issuer,
        audience: keys.audience,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw new TokenRejected(describe(error));
    }
    // jose already requires exp (requiredClaims); read here as a number for the cache and the lifetime.
    const expiresAt = payload.exp;
    if (typeof expiresAt !== 'number') throw new TokenRejected('the token has no exp claim');
    assertLifetime(payload, expiresAt, keys.maxLifetimeSeconds);
    const principal = principalFrom(payload);
    verified.set(token, principal, expiresAt * 1000);
    return principal;
  };
}

/**
 * Tokens already verified, so a client sending the same token again costs a map lookup, not
 * a signature check (the largest single cost of a read, docs/benchmark.md). An entry lives
 * until the token's `exp`, and at most a minute, so a key withdrawn from a JWKS stops working
 * within a minute. Bounded, least recently used first out. Only successes are kept.
 */
class VerifiedTokens {
  private static readonly SIZE = 10_000;
  private static readonly LIFETIME_MS = 60_000;
  private readonly entries = new Map<string, { principal: Principal; until: number }>();

  get(token: string): Principal | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    if (entry.until <= Date.now()) return undefined;
    this.entries.set(token, entry);
    return entry.principal;
  }

  set(token: string, principal: Principal, expiresAt: number): void {
    const oldest = this.entries.keys().next();
    if (this.entries.size >= VerifiedTokens.SIZE && !oldest.done) this.entries.delete(oldest.value);
    this.entries.set(token, { principal, until: Math.min(expiresAt, Date.now() + VerifiedTokens.LIFETIME_MS) });
  }
}

/**
 * No clock leeway, as for `exp`: a token issued in the future is refused, and so is one whose
 * lifetime (`exp` - `iat`, or what is left of it when there is no `iat`) exceeds the maximum.
 */
function assertLifetime(payload: JWTPayload, expiresAt: number, maxLifetimeSeconds: number | undefined): void {
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.iat === 'number' && payload.iat > now) throw new TokenRejected('the token was issued in the future');
  if (maxLifetimeSeconds !== undefined && expiresAt - (payload.iat ?? now) > maxLifetimeSeconds) {
    throw new TokenRejected(`the token lives longer than ${maxLifetimeSeconds} seconds`);
  }
}

function principalFrom(payload: JWTPayload): Principal {
  const { sub, org } = payload;
  // NUL cannot be stored or compared in PostgreSQL text, and lone surrogates are not text at
  // all: PostgreSQL would store each as U+FFFD, so "a\ud800" and "a\ud801" would be one owner.
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255 || sub.includes('\u0000') || !sub.isWellFormed()) {
    throw new TokenRejected('the sub claim must be a non-empty string of at most 255 characters of valid text');
  }
  // The service's own writes (the billing sweep's lapses) are made as `system`: no caller may
  // write as it, or a cancellation of theirs would read as the service's (and be taken for a lapse).
  if (sub === SERVICE_SUB) throw new TokenRejected(`the sub "${SERVICE_SUB}" is reserved for the service's own writes`);
  // A key acts as `apikey:<id>` (contract section 20): a token naming itself so would pass for it.
  if (sub.startsWith('apikey:')) throw new TokenRejected('a sub starting with "apikey:" is reserved for API keys');
  if (org !== undefined && org !== null && (typeof org !== 'string' || !isUuid(org))) {
    throw new TokenRejected('the org claim must be an organization id');
  }
  return { sub, org: typeof org === 'string' ? org.toLowerCase() : null };
}

function describe(error: unknown): string {
  if (error instanceof TokenRejected) return error.description;
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'unexpected token issuer';
    if (error.claim === 'aud') return 'unexpected token audience';
    if (error.reason === 'missing') return `the token has no ${error.claim} claim`;
    return `invalid ${error.claim} claim`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'invalid token signature';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'unsupported token algorithm';
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key matches the token';
  return 'malformed token';
}
