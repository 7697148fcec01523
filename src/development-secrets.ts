import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Development only: a random secret kept under the data directory, made on first use, so
 * `npm start` works with nothing configured and tokens stay valid across restarts.
 */
export function developmentSecret(dataDir: string, name: 'jwt-secret' | 'data-encryption-key'): Buffer {
  const file = join(dataDir, `dev-${name}`);
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  mkdirSync(dataDir, { recursive: true });
  // Written whole under a name of this process's own, then linked into place: the link fails
  // if another process (a worker starting beside this one, WEB_CONCURRENCY) made the file
  // first, and then its secret is read. The file is never seen half-written.
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, secret.toString('base64') + '\n', { mode: 0o600 });
  try {
    linkSync(draft, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  } finally {
    unlinkSync(draft);
  }
}
