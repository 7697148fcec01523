import type { MigrationObject } from '@mikro-orm/core';
import { readdirSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Every migration of this folder in the order of their names (their timestamps), found once at
 * start-up, so a new migration is its file alone. The files loaded are those with this module's
 * own extension (`.ts` under tsx and vitest, `.js` in the built dist/), so the same list loads
 * everywhere without MikroORM's TypeScript detection (its `path`/`pathTs`); each exports a
 * class named as its file.
 */
const folder = dirname(fileURLToPath(import.meta.url));
const extension = extname(fileURLToPath(import.meta.url));
const MIGRATION_FILE = /^(Migration\d{14}_\w+)\.(?:ts|js)$/;

export const migrations: MigrationObject[] = await Promise.all(
  readdirSync(folder)
    .filter((file) => extname(file) === extension)
    .flatMap((file) => MIGRATION_FILE.exec(file)?.[1] ?? [])
    .sort()
    .map(async (name) => {
      const module = (await import(pathToFileURL(join(folder, `${name}${extension}`)).href)) as Record<string, unknown>;
      if (typeof module[name] !== 'function') throw new Error(`${name}${extension} must export a class named ${name}`);
      return { name, class: module[name] as MigrationObject['class'] };
    }),
);
