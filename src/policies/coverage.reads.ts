import type { SqlClient } from '../database/database.js';
import { jsonObject, selectList, type ReadColumns } from '../database/read-model.js';
import type { CoveragePlan } from './coverage-plan.entity.js';

/** A plan of the catalog as reads serve it (the `Coverage` type, and a policy's snapshot), over the row alias `c`. */
export const COVERAGE_COLUMNS = {
  slug: 'c.slug',
  name: 'c.name',
  deductible: 'c.deductible',
  reimbursementRate: 'c.reimbursement_rate::float8',
  annualLimit: 'c.annual_limit',
  monthlyPremium: 'c.monthly_premium',
  currency: 'c.currency',
} as const satisfies ReadColumns<CoveragePlan, never>;

/** The same plan as one JSON object. */
export const COVERAGE_JSON = jsonObject(COVERAGE_COLUMNS);

const CATALOG = `select ${selectList(COVERAGE_COLUMNS)} from coverage_plan c order by c.monthly_premium`;

/** The coverage catalog, cheapest first. */
export function readCoverages(db: SqlClient): Promise<CoveragePlan[]> {
  return db.query<CoveragePlan>(CATALOG);
}
