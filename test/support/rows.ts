import { randomUUID } from 'node:crypto';
import type { TestService } from './test-service.js';

/**
 * Rows written straight to a test service's database, for speed or for shapes the API does not
 * make (the organization trigger still fills each row's ancestry). One statement per call; the
 * rows are inserted in the order given, so `seq` follows it. Columns not given get a default.
 */
type Database = Pick<TestService, 'sql'>;

/** A column: its name, its PostgreSQL type, its value in a row, and optionally what to insert instead of that value. */
type Column<Row> = { name: string; type: string; value: (row: Row) => unknown; select?: string };

async function insertRows<Row>(db: Database, table: string, columns: Array<Column<Row>>, rows: Row[]): Promise<void> {
  const names = columns.map((column) => column.name).join(', ');
  await db.sql(
    `insert into ${table} (${names})
     select ${columns.map((column) => column.select ?? column.name).join(', ')}
     from unnest(${columns.map((column, i) => `$${i + 1}::${column.type}[]`).join(', ')}) with ordinality as given (${names}, ordinal)
     order by ordinal`,
    columns.map((column) => rows.map(column.value)),
  );
}

export interface OrganizationRow {
  /** Default: a new UUID. */
  id?: string;
  /** Default: none (a root). */
  parentId?: string | null;
  ownerSub?: string;
  name?: string;
  legalName?: string;
  legalType?: string;
  taxId?: string;
}

const ORGANIZATION_COLUMNS: Array<Column<Required<OrganizationRow>>> = [
  { name: 'id', type: 'uuid', value: (row) => row.id },
  { name: 'parent_id', type: 'uuid', value: (row) => row.parentId },
  { name: 'owner_sub', type: 'text', value: (row) => row.ownerSub },
  { name: 'name', type: 'text', value: (row) => row.name },
  { name: 'legal_name', type: 'text', value: (row) => row.legalName },
  { name: 'legal_type', type: 'text', value: (row) => row.legalType },
  { name: 'tax_id', type: 'text', value: (row) => row.taxId },
];

/** Inserts organizations (without owners or bank accounts); returns their ids, in order. */
export async function insertOrganizations(db: Database, rows: OrganizationRow[]): Promise<string[]> {
  const full = rows.map((row) => ({
    id: randomUUID(),
    parentId: null,
    ownerSub: 'loader',
    name: 'Loaded',
    legalName: 'x',
    legalType: 'llc',
    taxId: '1',
    ...row,
  }));
  await insertRows(db, 'organization', ORGANIZATION_COLUMNS, full);
  return full.map((row) => row.id);
}

export interface PolicyRow {
  number: number;
  organizationId: string;
  /** Default: a new UUID. */
  id?: string;
  ownerFirstname?: string;
  ownerLastname?: string;
  petName?: string;
  effectiveDate?: string;
  expirationDate?: string;
  coverageSlug?: string;
  /** Default: the catalog's plan for `coverageSlug`. */
  coverage?: unknown;
  createdBySub?: string;
}

const POLICY_COLUMNS: Array<Column<Required<PolicyRow>>> = [
  { name: 'id', type: 'uuid', value: (row) => row.id },
  { name: 'number', type: 'bigint', value: (row) => row.number },
  { name: 'organization_id', type: 'uuid', value: (row) => row.organizationId },
  { name: 'owner_firstname', type: 'text', value: (row) => row.ownerFirstname },
  { name: 'owner_lastname', type: 'text', value: (row) => row.ownerLastname },
  { name: 'pet_name', type: 'text', value: (row) => row.petName },
  { name: 'effective_date', type: 'date', value: (row) => row.effectiveDate },
  { name: 'expiration_date', type: 'date', value: (row) => row.expirationDate },
  { name: 'coverage_slug', type: 'text', value: (row) => row.coverageSlug },
  {
    name: 'coverage',
    type: 'jsonb',
    value: (row) => (row.coverage === undefined ? null : JSON.stringify(row.coverage)),
    // The snapshot as createPolicy writes it (camelCase, with the currency).
    select: `coalesce(given.coverage, (select jsonb_build_object('slug', c.slug, 'name', c.name, 'deductible', c.deductible,
      'reimbursementRate', c.reimbursement_rate, 'annualLimit', c.annual_limit, 'monthlyPremium', c.monthly_premium, 'currency', c.currency)
      from coverage_plan c where c.slug = given.coverage_slug))`,
  },
  { name: 'created_by_sub', type: 'text', value: (row) => row.createdBySub },
];

/** Inserts policies (without charges). */
export async function insertPolicies(db: Database, rows: PolicyRow[]): Promise<void> {
  const full = rows.map((row) => ({
    id: randomUUID(),
    ownerFirstname: 'o',
    ownerLastname: 'w',
    petName: 'pet',
    effectiveDate: '2026-01-01',
    expirationDate: '2027-01-01',
    coverageSlug: 'accident-only',
    coverage: undefined,
    createdBySub: 'loader',
    ...row,
  }));
  await insertRows(db, 'policy', POLICY_COLUMNS, full);
}

/** root ← child ← grandchild, named after and owned by `sub`; returns their ids. */
export async function insertTree(db: Database, sub: string): Promise<{ root: string; child: string; grandchild: string }> {
  const [root] = await insertOrganizations(db, [{ name: `${sub} root`, ownerSub: sub }]);
  const [child] = await insertOrganizations(db, [{ name: `${sub} child`, parentId: root, ownerSub: sub }]);
  const [grandchild] = await insertOrganizations(db, [{ name: `${sub} grandchild`, parentId: child, ownerSub: sub }]);
  return { root, child, grandchild };
}
