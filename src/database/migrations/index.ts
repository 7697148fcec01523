import type { MigrationObject } from '@mikro-orm/core';
import { MIGRATION_NAMES } from './names.js';

/**
 * The migrations as MikroORM's Migrator takes them, loaded from their names (names.ts) by path,
 * so they load the same from TypeScript and compiled code. Only what migrates imports this
 * module (database/migrate.ts, the tests): a worker that does not migrate never loads the
 * migrator, knex or these files (docs/decisions.md, "One pool, one gateway").
 */
export const migrations: MigrationObject[] = await Promise.all(
  MIGRATION_NAMES.map(async (name) => {
    const module = (await import(`./${name}.js`)) as Record<string, MigrationObject['class']>;
    const migration = module[name];
    if (!migration) throw new Error(`src/database/migrations/${name}.ts exports no class ${name}`);
    return { name, class: migration };
  }),
);
