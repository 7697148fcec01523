import type { EntityManager } from '@mikro-orm/postgresql';
import { Organization } from '../organizations/organization.entity.js';
import { Policy } from '../policies/policy.entity.js';
import { isPolicyNumber, isUuid } from '../validation/identifiers.js';
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
): Promise<Organization | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = accessPredicate('o', principal);
  return em
    .createQueryBuilder(Organization, 'o')
    .select('*')
    .where({ id: id.toLowerCase() })
    .andWhere(sql, params)
    .getSingleResult();
}

/** The policy with this number if the principal may access its organization; one SQL statement. */
export async function findAccessiblePolicy(
  em: EntityManager,
  principal: Principal,
  number: number,
): Promise<Policy | null> {
  if (!isPolicyNumber(number)) return null;
  const { sql, params } = accessPredicate('o', principal);
  return em
    .createQueryBuilder(Policy, 'p')
    .select('p.*')
    .join('p.organization', 'o')
    .where({ number })
    .andWhere(sql, params)
    .getSingleResult();
}
