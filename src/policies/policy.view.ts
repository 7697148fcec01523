import type { OrganizationView } from '../organizations/organization.view.js';
import type { CoverageSnapshot } from './coverage-plan.entity.js';
import type { ScheduledCharge } from './premium-schedule.js';

/** A policy as GraphQL reads serve it (see organization.view.ts for why views). */
export interface PolicyView {
  id: string;
  number: number;
  organizationId: string;
  internalID: string | null;
  ownerFirstname: string;
  ownerLastname: string;
  ownerDOB: string | null;
  petName: string;
  petDOB: string | null;
  effectiveDate: string;
  expirationDate: string;
  coverageSlug: string;
  coverage: CoverageSnapshot;
  /** Present when selected with the policy; otherwise loaded in batches. */
  charges?: ChargeView[];
  organization?: OrganizationView;
}

export type ChargeView = ScheduledCharge & { id: string };

/** The select list of a policy view over the row alias `p` (bigint and dates as text). */
export const POLICY_VIEW = `p.id, p.number::text as number, p.organization_id as "organizationId", p.internal_id as "internalID",
  p.owner_firstname as "ownerFirstname", p.owner_lastname as "ownerLastname", p.owner_dob::text as "ownerDOB",
  p.pet_name as "petName", p.pet_dob::text as "petDOB", p.effective_date::text as "effectiveDate",
  p.expiration_date::text as "expirationDate", p.coverage_slug as "coverageSlug", p.coverage`;

/** A policy's charges as one JSON array, in period order (a correlated subquery over `p`). */
export const CHARGES_JSON = `(select coalesce(json_agg(json_build_object('id', c.id, 'type', c.type, 'periodStart', c.period_start,
  'periodEnd', c.period_end, 'dueDate', c.due_date, 'amount', c.amount, 'currency', c.currency, 'status', c.status)
  order by c.sequence), '[]') from charge c where c.policy_id = p.id)`;

export const CHARGE_VIEW = `c.id, c.type, c.period_start::text as "periodStart", c.period_end::text as "periodEnd",
  c.due_date::text as "dueDate", c.amount, c.currency, c.status`;

/** A row selected with POLICY_VIEW: only the bigint needs converting. */
export function policyView(row: Record<string, unknown>): PolicyView {
  return { ...(row as unknown as PolicyView), number: Number(row.number) };
}
