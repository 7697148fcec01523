import type { SqlClient } from '../database/database.js';
import { ValidateBy } from 'class-validator';
import { unknownPlan } from './priced-body.js';

/**
 * The catalog's slugs, so that an unknown `coverageSlug` is a broken rule like any other and is
 * listed with the body's other errors (contract sections 5 and 18, issue 25 item 8) instead of
 * on the next try. The catalog is four plans that change only through a migration: the slugs
 * are read once and kept; a slug not among them reads them again (a plan a migration added
 * since), so a miss costs one small query and a hit none. The create still prices from the
 * plan's row (priced-body.ts), which stays the final word if a plan went away in between.
 */
let readSlugs: (() => Promise<string[]>) | null = null;
let known = new Set<string>();

/** Where the slugs come from: set once the database is open (app.ts). */
export function readCatalogFrom(db: SqlClient): void {
  readSlugs = async () => (await db.query<{ slug: string }>('select slug from coverage_plan')).map((row) => row.slug);
  known = new Set();
}

/**
 * Whether the catalog has this plan. True when it cannot be told here, so that pricing, which reads
 * the plan's row anyway, judges it: no catalog connected (pure unit tests), or the read failed (the
 * database is away: pricing then answers 503 as any read would, instead of a rule failing on it).
 */
export async function isCatalogPlan(slug: string): Promise<boolean> {
  if (readSlugs === null || known.has(slug)) return true;
  try {
    known = new Set(await readSlugs());
  } catch {
    return true;
  }
  return known.has(slug);
}

/**
 * The rule on a `coverageSlug`: a plan of the catalog. Blank text is the text rule's to report,
 * so it passes here; absence and null are the field's optional/required rules'.
 */
export const CatalogPlan = () =>
  ValidateBy({
    name: 'catalogPlan',
    async: true,
    validator: {
      validate: (value: unknown) => (typeof value !== 'string' || value.trim() === '' ? true : isCatalogPlan(value)),
      defaultMessage: () => unknownPlan().message,
    },
  });
