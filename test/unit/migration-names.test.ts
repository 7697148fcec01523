import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIGRATION_NAMES } from '../../src/database/migrations/names.js';

/**
 * The migrations' names are the one list the migrator loads them from and readiness compares
 * with the database (src/database/migrations/names.ts): a file left out of it would never run.
 */
describe('the list of migrations', () => {
  it('names every migration file, each once, in the order of their timestamps', () => {
    const folder = join(dirname(fileURLToPath(import.meta.url)), '../../src/database/migrations');
    const files = readdirSync(folder)
      .filter((file) => /^Migration\d+_\w+\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    expect(MIGRATION_NAMES).toEqual(files);
  });
});
