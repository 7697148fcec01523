import { SignJWT } from 'jose';

export interface TokenClaims {
  sub: string;
  org?: string;
  /** Seconds until `exp`. */
  expiresIn?: number;
  issuer?: string;
  audience?: string;
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
