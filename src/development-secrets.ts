import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  // 'wx' fails if another process created the file first; then read what it wrote.
  try {
    writeFileSync(file, secret.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
}
