import { SignJWT } from 'jose';

export interface TokenClaims {
  sub: string;
  org?: string;
  /** Seconds until `exp`. */
  expiresIn?: number;
  issuer?: string;
  audience?: string;
}

/**
 * The one default lifetime of a development token, the start-up banner's and `npm run token`'s
 * (issue 25, F19): a working day and then some, so one token lasts a session; never longer than
 * the service accepts (JWT_MAX_LIFETIME_SECONDS, 24 h by default).
 */
export function developmentTokenSeconds(maxLifetimeSeconds: number): number {
  return Math.min(24 * 3600, maxLifetimeSeconds);
}

/** Signs an HS256 token: development tokens, `npm run token`, and the tests. */
export function mintToken(secret: Uint8Array, claims: TokenClaims): Promise<string> {
  const jwt = new SignJWT(claims.org ? { org: claims.org } : {})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + (claims.expiresIn ?? 3600));
  if (claims.issuer) jwt.setIssuer(claims.issuer);
  if (claims.audience) jwt.setAudience(claims.audience);
  return jwt.sign(secret);
}
