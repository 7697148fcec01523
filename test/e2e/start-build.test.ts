import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * `npm start` builds only what changed (issue 25, F8): a second start with nothing changed
 * writes nothing to dist/, a changed source is compiled again, and a checkout without dist/
 * builds it. Run in a copy of the project (node_modules linked), so that editing a source here
 * touches nothing of the real checkout. WEB_CONCURRENCY=0 makes the service refuse at once after
 * the build, with its configuration error: proof that `npm start` went on to run dist/src/main.js
 * without starting a database.
 */
describe('npm start builds only when a source changed', () => {
  let copy: string;
  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  /** `npm start` in the copy: its exit code and output. */
  function npmStart(): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn('npm', ['start'], {
        cwd: copy,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, WEB_CONCURRENCY: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.once('close', (code) => resolve({ code, output }));
    });
  }

  /** Every file under dist/ and when it was last written. */
  async function distFiles(): Promise<Map<string, number>> {
    const files = new Map<string, number>();
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else files.set(relative(copy, path), (await stat(path)).mtimeMs);
      }
    };
    await walk(join(copy, 'dist'));
    return files;
  }

  it('builds a fresh checkout, skips the build when nothing changed, and rebuilds a changed source', async () => {
    copy = await mkdtemp(join(tmpdir(), 'org-policy-start-build-'));
    for (const path of ['src', 'scripts', 'mikro-orm.config.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) {
      await cp(path, join(copy, path), { recursive: true });
    }
    await symlink(join(process.cwd(), 'node_modules'), join(copy, 'node_modules'));
    const refused = 'Configuration error: WEB_CONCURRENCY must be an integer from 1 to 64 (got "0")';

    const first = await npmStart();
    expect(first.output).toContain(refused);
    expect(first.code).toBe(1);
    const built = await distFiles();
    expect(built.has('dist/src/main.js')).toBe(true);
    expect(built.has('dist/src/welcome.js')).toBe(true);

    // Nothing changed: not one file of dist/ is written again.
    const second = await npmStart();
    expect(second.output).toContain(refused);
    expect(await distFiles()).toEqual(built);

    // A changed source is compiled again before the service runs.
    const welcome = join(copy, 'src', 'welcome.ts');
    await writeFile(welcome, `${await readFile(welcome, 'utf8')}\nexport const changedForTheBuildTest = 1;\n`);
    const third = await npmStart();
    expect(third.output).toContain(refused);
    const rebuilt = await distFiles();
    expect(rebuilt.get('dist/src/welcome.js')).toBeGreaterThan(built.get('dist/src/welcome.js')!);
    expect(await readFile(join(copy, 'dist', 'src', 'welcome.js'), 'utf8')).toContain('changedForTheBuildTest');
  }, 180_000);
});
