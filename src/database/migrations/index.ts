import type { MigrationObject } from '@mikro-orm/core';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MIGRATION_EXTENSION, MIGRATION_NAMES, MIGRATIONS_FOLDER } from './names.js';

/**
 * The migrations of this folder (names.ts) as MikroORM's Migrator takes them, loaded the same
 * everywhere without MikroORM's TypeScript detection (its `path`/`pathTs`). Only what migrates
 * imports this module (database/migrate.ts, the tests): a worker that does not migrate never
 * loads the migrator, knex or these files (docs/decisions.md, "One pool, one gateway").
 */
export const migrations: MigrationObject[] = await Promise.all(
  MIGRATION_NAMES.map(async (name) => {
    const module = (await import(pathToFileURL(join(MIGRATIONS_FOLDER, `${name}${MIGRATION_EXTENSION}`)).href)) as Record<string, unknown>;
    if (typeof module[name] !== 'function') throw new Error(`${name}${MIGRATION_EXTENSION} must export a class named ${name}`);
    return { name, class: module[name] as MigrationObject['class'] };
  }),
);
