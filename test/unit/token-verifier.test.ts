import { SignJWT } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTokenVerifier, TokenRejected } from '../../src/auth/token-verifier.js';

const secret = new TextEncoder().encode('unit-test-secret-that-is-32-bytes-long');
const sign = (claims: Record<string, unknown>, expiresInSeconds: number) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds).sign(secret);

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

  it('does not remember refusals', async () => {
    const verify = createTokenVerifier({ secret });
    const forged = (await sign({ sub: 'alice' }, 600)).slice(0, -2) + 'xx';
    await expect(verify(forged)).rejects.toThrow(TokenRejected);
    await expect(verify(forged)).rejects.toThrow(TokenRejected);
  });
});
