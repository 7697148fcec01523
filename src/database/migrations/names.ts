import { readdirSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This folder, and its modules' extension: `.ts` under tsx and vitest, `.js` in the built dist/. */
export const MIGRATIONS_FOLDER = dirname(fileURLToPath(import.meta.url));
export const MIGRATION_EXTENSION = extname(fileURLToPath(import.meta.url));
const MIGRATION_FILE = /^(Migration\d{14}_\w+)\.(?:ts|js)$/;

/**
 * Every migration of this folder by name, in the order of their names (their timestamps), found
 * once at start-up, so a new migration is its file alone; each exports a class named as its
 * file. Read without loading them: readiness compares these names with the database's
 * (migration-state.ts) without the migrator, and index.ts loads the classes for the migrator.
 */
export const MIGRATION_NAMES: readonly string[] = readdirSync(MIGRATIONS_FOLDER)
  .filter((file) => extname(file) === MIGRATION_EXTENSION)
  .flatMap((file) => MIGRATION_FILE.exec(file)?.[1] ?? [])
  .sort();
