import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTokenVerifier, TokenRejected } from '../../src/auth/token-verifier.js';

const secret = new TextEncoder().encode('unit-test-secret-that-is-32-bytes-long');
const sign = (claims: Record<string, unknown>, expiresInSeconds: number) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds)
    .sign(secret);

describe('token verifier cache', () => {
  afterEach(() => vi.useRealTimers());

  it('returns the same principal for a token seen before', async () => {
    const verify = createTokenVerifier({ secret });
    const token = await sign({ sub: 'alice' }, 600);
    expect(await verify(token)).toEqual({ sub: 'alice', org: null });
    expect(await verify(token)).toEqual({ sub: 'alice', org: null });
  });

  it('never serves a cached token past its exp', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const verify = createTokenVerifier({ secret });
    const token = await sign({ sub: 'alice' }, 30);
    await verify(token);
    vi.setSystemTime(Date.now() + 31_000);
    await expect(verify(token)).rejects.toThrow(TokenRejected);
  });

  it('refuses the sub the service writes as (system), naming why', async () => {
    const verify = createTokenVerifier({ secret });
    await expect(verify(await sign({ sub: 'system' }, 600))).rejects.toThrow(/reserved for the service/);
    expect(await verify(await sign({ sub: 'systems' }, 600))).toEqual({ sub: 'systems', org: null });
  });

  it('does not remember refusals', async () => {
    const verify = createTokenVerifier({ secret });
    const forged = (await sign({ sub: 'alice' }, 600)).slice(0, -2) + 'xx';
    await expect(verify(forged)).rejects.toThrow(TokenRejected);
    await expect(verify(forged)).rejects.toThrow(TokenRejected);
  });
});

describe('token verifier claims', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const token = (claims: Record<string, unknown>, iat: number | undefined, exp: number) => {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp);
    if (iat !== undefined) jwt.setIssuedAt(iat);
    return jwt.sign(secret);
  };

  it('refuses a token living longer than the maximum lifetime, measured from iat or from now', async () => {
    const verify = createTokenVerifier({ secret, maxLifetimeSeconds: 3600 });
    await expect(verify(await token({ sub: 'a' }, now(), now() + 3601))).rejects.toThrow('lives longer than 3600 seconds');
    await expect(verify(await token({ sub: 'a' }, undefined, now() + 7200))).rejects.toThrow('lives longer');
    await expect(verify(await token({ sub: 'a' }, now() - 100, now() + 3000))).resolves.toEqual({ sub: 'a', org: null });
  });

  it('refuses a token issued in the future', async () => {
    const verify = createTokenVerifier({ secret });
    await expect(verify(await token({ sub: 'a' }, now() + 60, now() + 600))).rejects.toThrow('issued in the future');
  });

  it('refuses a sub that is not well-formed text', async () => {
    const verify = createTokenVerifier({ secret });
    await expect(verify(await token({ sub: 'victim\ud800' }, now(), now() + 60))).rejects.toThrow(TokenRejected);
    await expect(verify(await token({ sub: 'victim\ufffd' }, now(), now() + 60))).resolves.toEqual({ sub: 'victim\ufffd', org: null });
  });
});
