import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root: the nearest folder above this file with a package.json (src/ or dist/src/). */
function packageRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder);
    if (parent === folder) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    folder = parent;
  }
  return folder;
}

export interface ServiceVersion {
  version: string;
  /** The source commit when known: GIT_COMMIT, else the checkout's HEAD. */
  commit?: string;
  /** The Node.js running the service (`process.version`, contract section 16). */
  node: string;
}

/** What `GET /version` answers (spec section 9), read once at start-up. */
export function serviceVersion(env: NodeJS.ProcessEnv = process.env): ServiceVersion {
  const root = packageRoot();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const commit =
    env.GIT_COMMIT ||
    (existsSync(join(root, '.git')) ? spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout?.trim() : undefined);
  return commit ? { version, commit, node: process.version } : { version, node: process.version };
}
