import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../src/database/embedded-postgres.js';

/**
 * The embedded PostgreSQL runs in a process group of its own (so Ctrl-C does not reach it), which
 * also means nothing stops it with the service but the service itself: every way out of the
 * process short of SIGKILL must stop it (SIGKILL is covered by crash-and-shutdown.test.ts, whose
 * second start stops the orphan).
 */
describe('the embedded PostgreSQL never outlives its process', () => {
  const dirs: string[] = [];
  const postmasters: number[] = [];
  afterAll(async () => {
    // Only when the test failed: a PostgreSQL it left running.
    for (const pid of postmasters) if (isAlive(pid)) process.kill(pid, 'SIGINT');
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['an uncaught error', "throw new Error('boom')"],
    ['process.exit(3)', 'process.exit(3)'],
  ])(
    'stops when the process ends by %s',
    async (_how, ending) => {
      const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-embedded-'));
      dirs.push(dataDir);
      const script = `
      const { startEmbeddedPostgres } = await import('./src/database/embedded-postgres.ts');
      const { createLogger } = await import('./src/logger.ts');
      const { readFileSync } = await import('node:fs');
      await startEmbeddedPostgres(${JSON.stringify(dataDir)}, createLogger('silent'));
      console.log('postmaster ' + readFileSync(${JSON.stringify(join(dataDir, 'postgres', 'postmaster.pid'))}, 'utf8').split('\\n')[0]);
      ${ending};`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise((resolve) => child.once('close', resolve));
      expect(code).not.toBe(0);
      const postmaster = Number(/^postmaster (\d+)$/m.exec(output)?.[1]);
      expect(postmaster, output).toBeGreaterThan(0);
      postmasters.push(postmaster);
      // Signalled as the process ended; its fast shutdown takes a moment.
      const deadline = Date.now() + 15_000;
      while (isAlive(postmaster) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(isAlive(postmaster)).toBe(false);
    },
    60_000,
  );

  it("stops with a script's Ctrl-C (SIGINT to its group, no handler): left in the caller's group unless ownProcessGroup", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'org-policy-embedded-'));
    dirs.push(dataDir);
    const script = `
      const { startEmbeddedPostgres } = await import('./src/database/embedded-postgres.ts');
      const { createLogger } = await import('./src/logger.ts');
      const { readFileSync } = await import('node:fs');
      await startEmbeddedPostgres(${JSON.stringify(dataDir)}, createLogger('silent'));
      console.log('postmaster ' + readFileSync(${JSON.stringify(join(dataDir, 'postgres', 'postmaster.pid'))}, 'utf8').split('\\n')[0]);
      setInterval(() => undefined, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const closed = new Promise((resolve) => child.once('close', resolve));
    const deadline = Date.now() + 60_000;
    while (!/^postmaster \d+$/m.test(output) && child.exitCode === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const postmaster = Number(/^postmaster (\d+)$/m.exec(output)?.[1]);
    expect(postmaster, output).toBeGreaterThan(0);
    postmasters.push(postmaster);
    process.kill(-child.pid!, 'SIGINT');
    await closed;
    const stopped = Date.now() + 15_000;
    while (isAlive(postmaster) && Date.now() < stopped) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isAlive(postmaster)).toBe(false);
  }, 60_000);
});
