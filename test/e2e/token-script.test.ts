import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { printWelcome } from '../../src/welcome.js';

/** `npm run token`, as a developer runs it: from the project, in a process of its own. */
function token(args: string[], env: Record<string, string>) {
  const childEnv: Record<string, string> = { ...process.env, NODE_ENV: 'development', ...env };
  for (const name of ['JWT_SECRET', 'JWT_PUBLIC_KEY', 'JWKS_URL', 'JWT_ISSUER', 'JWT_AUDIENCE', 'VITEST', 'VITEST_WORKER_ID']) {
    if (!(name in env)) delete childEnv[name];
  }
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/token.ts', ...args], { env: childEnv, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run token', () => {
  it('refuses, in one line and exit 2, to mint with a development secret it would have to create', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'token-'));
    const result = token(['--sub', 'alice'], { DATA_DIR: dataDir });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(dataDir);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it("signs with the server's development secret, printing only the token", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'token-'));
    const secret = Buffer.alloc(32, 9);
    writeFileSync(join(dataDir, 'dev-jwt-secret'), secret.toString('base64') + '\n');
    const result = token(['--sub', 'alice', '--org', '7d7c1a52-5c43-4b2a-9a51-0c1f0c8f0b6e', '--expires-in', '60'], { DATA_DIR: dataDir });
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const { payload } = await jwtVerify(lines[0], secret);
    expect(payload).toMatchObject({ sub: 'alice', org: '7d7c1a52-5c43-4b2a-9a51-0c1f0c8f0b6e' });
    expect(payload.exp! - payload.iat!).toBe(60);
  });

  it('explains itself with --help, and names a bad argument in one line with exit 2', () => {
    const help = token(['--help'], {});
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: npm run -s token');
    for (const args of [['--bogus'], ['--sub']]) {
      const result = token(args, { JWT_SECRET: 'x'.repeat(32) });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    const tooLong = token(['--expires-in', '999999999'], { JWT_SECRET: 'x'.repeat(32) });
    expect(tooLong.status).toBe(2);
    expect(tooLong.stderr).toContain('JWT_MAX_LIFETIME_SECONDS');
  });

  it("has one default lifetime with the start-up banner's token: 24 h, or JWT_MAX_LIFETIME_SECONDS when shorter (issue 25, F19)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'token-'));
    const secret = Buffer.alloc(32, 7);
    writeFileSync(join(dataDir, 'dev-jwt-secret'), secret.toString('base64') + '\n');
    const lifetime = async (token: string) => {
      const { payload } = await jwtVerify(token, secret);
      return payload.exp! - payload.iat!;
    };
    /** The banner's token and what it says of it, as a start prints them. */
    const banner = async (env: Record<string, string>) => {
      const printed: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((text: string) => void printed.push(text));
      try {
        await printWelcome(loadConfig({ NODE_ENV: 'development', DATA_DIR: dataDir, ...env }, false), 'http://127.0.0.1:4000');
      } finally {
        log.mockRestore();
      }
      const text = printed.join('\n');
      return { said: /valid ([^;]+);/.exec(text)?.[1], lifetime: await lifetime(/export TOKEN=(\S+)/.exec(text)![1]) };
    };
    const script = token(['--sub', 'alice'], { DATA_DIR: dataDir });
    expect(script.status, script.stderr).toBe(0);
    expect(await lifetime(script.stdout.trim())).toBe(24 * 3600);
    expect(await banner({})).toEqual({ said: '24 h', lifetime: 24 * 3600 });
    expect(token(['--help'], {}).stdout).toContain('default: 86400, 24 h');
    // A service that accepts less gets tokens it accepts, from both.
    const shorter = token(['--sub', 'alice'], { DATA_DIR: dataDir, JWT_MAX_LIFETIME_SECONDS: '600' });
    expect(shorter.status, shorter.stderr).toBe(0);
    expect(await lifetime(shorter.stdout.trim())).toBe(600);
    expect(await banner({ JWT_MAX_LIFETIME_SECONDS: '600' })).toEqual({ said: '10 min', lifetime: 600 });
  });
});
