import type { SqlClient } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess } from '../database/sql.js';
import { badUserInput } from '../errors/errors.js';
import { ORGANIZATION_SELECT, targetNotFound, targetOrganizationId, type OrganizationRead } from '../organizations/organization.reads.js';
import { isUuid } from '../values/identifiers.js';
import type { CoverageSnapshot } from './coverage-plan.entity.js';
import { COVERAGE_JSON } from './coverage.reads.js';
import { premiumSchedule, type ScheduledCharge } from './ledger/premium-schedule.js';

/** A plan of the catalog as it is now, as a policy's coverage snapshot, by slug (one parameter); null when unknown. */
const COVERAGE_BY_SLUG = `(select ${COVERAGE_JSON} from coverage_plan c where c.slug = ?)`;

/** The plan with this slug as it is now (a snapshot to copy), or null for a slug the catalog does not have. */
export async function currentPlan(db: SqlClient, slug: string): Promise<CoverageSnapshot | null> {
  const [row] = await db.query<{ coverage: CoverageSnapshot | null }>(`select ${COVERAGE_BY_SLUG} as coverage`, [slug]);
  return row.coverage;
}

/** Unknown slug: the same 400 on `coverageSlug` as the create's. */
export const unknownPlan = () => ({ path: 'coverageSlug', message: 'is not a plan of the coverage catalog (see the coverages query)' });

/**
 * The target organization (access-checked, as reads serve it) and the plan as it is now, in
 * one round trip: no row when the organization is out of reach, a null coverage for an
 * unknown slug.
 */
const TARGET_AND_COVERAGE = perAccess(
  (access) => `select ${ORGANIZATION_SELECT}, ${COVERAGE_BY_SLUG} as coverage
  from organization o where o.id = ? and ${access}`,
);

/** What pricing a policy body needs: where it goes, which plan, and its term. */
export interface PricedTerms {
  organizationId?: string | null;
  coverageSlug: string;
  effectiveDate: string;
  expirationDate: string;
}

export interface PricedBody {
  organization: OrganizationRead;
  /** The plan as it is now: copied into the policy or quote, so later catalog changes never rewrite it. */
  coverage: CoverageSnapshot;
  /** Section 5's premium schedule for the term at that plan's price. */
  schedule: ScheduledCharge[];
}

/**
 * A policy create's and a quote's common first step: the target organization (`organizationId`,
 * else the caller's `org`; 404 out of reach), the plan (400 on `coverageSlug` when unknown) and
 * the schedule it charges. One function, so a quote prices exactly as the create would.
 */
export async function priceBody(db: SqlClient, principal: Principal, terms: PricedTerms): Promise<PricedBody> {
  const organizationId = targetOrganizationId(terms.organizationId, principal);
  const { sql: access, params } = accessPredicate('o', principal);
  const [target] = isUuid(organizationId)
    ? await db.query<OrganizationRead & { coverage: CoverageSnapshot | null }>(TARGET_AND_COVERAGE(access), [
        terms.coverageSlug,
        organizationId.toLowerCase(),
        ...params,
      ])
    : [];
  if (!target) throw targetNotFound(terms.organizationId != null);
  const { coverage, ...organization } = target;
  if (!coverage) {
    throw badUserInput([unknownPlan()]);
  }
  const schedule = premiumSchedule({
    effectiveDate: terms.effectiveDate,
    expirationDate: terms.expirationDate,
    monthlyPremium: coverage.monthlyPremium,
    currency: coverage.currency,
  });
  return { organization, coverage, schedule };
}

/** The fields a policy and its quote share, as a body (or a quote) gives them, and the plan it was priced at. */
export interface QuotedFields {
  ownerFirstname: string;
  ownerLastname: string;
  ownerDOB: string | null;
  petName: string;
  petDOB: string | null;
  effectiveDate: string;
  expirationDate: string;
  coverageSlug: string;
  coverage: CoverageSnapshot;
}

/**
 * The quoted fields of a body or a stored quote, with the plan: one mapping for the policy
 * create, the quote create and issuing, so a new field of both is written in one place.
 */
export function quotedFields(
  source: Omit<QuotedFields, 'coverageSlug' | 'coverage' | 'ownerDOB' | 'petDOB'> & { ownerDOB?: string | null; petDOB?: string | null },
  coverage: CoverageSnapshot,
): QuotedFields {
  return {
    ownerFirstname: source.ownerFirstname,
    ownerLastname: source.ownerLastname,
    ownerDOB: source.ownerDOB ?? null,
    petName: source.petName,
    petDOB: source.petDOB ?? null,
    effectiveDate: source.effectiveDate,
    expirationDate: source.expirationDate,
    coverageSlug: coverage.slug,
    coverage,
  };
}
