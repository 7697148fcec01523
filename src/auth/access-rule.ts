import type { EntityManager } from '@mikro-orm/postgresql';
import { querySql } from '../database/sql.js';
import { ORGANIZATION_JSON, ORGANIZATION_VIEW, type OrganizationView } from '../organizations/organization.view.js';
import { CHARGES_JSON, POLICY_VIEW, policyView, type PolicyView } from '../policies/policy.view.js';
import { isPolicyNumber, isUuid } from '../values/identifiers.js';
import type { Principal } from './principal.js';

/**
 * The access rule of contract section 3, as one SQL predicate over an organization row `o`:
 * the principal's `org` claim is `o` or an ancestor, or its `sub` created `o` or an ancestor.
 * Each row carries `path` (ids root..itself) and `owner_subs` (creators along that path),
 * kept by a trigger on insert, so the check reads one row found by primary key, whatever
 * the depth of the tree. Forbidden and missing look the same to the caller: no row.
 */
export function accessPredicate(alias: string, principal: Principal): { sql: string; params: unknown[] } {
  return {
    sql: `(?::uuid = any(${alias}.path) or ?::text = any(${alias}.owner_subs))`,
    params: [principal.org, principal.sub],
  };
}

/** The organization with this id if the principal may access it; one SQL statement. */
export async function findAccessibleOrganization(
  em: EntityManager,
  principal: Principal,
  id: string,
): Promise<OrganizationView | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = accessPredicate('o', principal);
  const [row] = await querySql<OrganizationView>(em, ORGANIZATION_BY_ID(sql), [id.toLowerCase(), ...params]);
  return row ?? null;
}

/** The statements of the two access-checked reads, given the access predicate (also for `npm run explain`). */
export const ORGANIZATION_BY_ID = (access: string) => `select ${ORGANIZATION_VIEW} from organization o where o.id = ? and ${access}`;
export const POLICY_BY_NUMBER = (access: string) => `select ${POLICY_VIEW}, ${CHARGES_JSON} as charges, ${ORGANIZATION_JSON} as organization
     from policy p join organization o on o.id = p.organization_id
     where p.number = ? and ${access}`;

/**
 * The policy with this number if the principal may access its organization, with its charges
 * and organization: one SQL statement.
 */
export async function findAccessiblePolicy(em: EntityManager, principal: Principal, number: number): Promise<PolicyView | null> {
  if (!isPolicyNumber(number)) return null;
  const { sql, params } = accessPredicate('o', principal);
  const [row] = await querySql(em, POLICY_BY_NUMBER(sql), [number, ...params]);
  return row ? policyView(row) : null;
}
