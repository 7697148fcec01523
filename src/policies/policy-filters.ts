import { ArgsType, Field, type ClassType } from 'type-graphql';
import { badUserInput } from '../errors/errors.js';
import { isCalendarDate } from '../values/calendar-date.js';
import { BILLING_STATUSES, BillingStatusEnum, type BillingStatus } from './billing-status.js';
import { isCatalogPlan } from './coverage-catalog.js';
import { unknownPlan } from './priced-body.js';
import { PolicyStatus, STATUS_PREDICATE, TODAY_SQL } from './policy-status.js';

/**
 * The policy lists' filters (contract section 23): `status`, `coverageSlug`, `billingStatus`,
 * `effectiveFrom` and `effectiveTo`, combined with AND. One declaration (FILTERS) gives the
 * GraphQL arguments (PolicyFilterArgs), their checks (policyFilterOf), the REST query
 * parameters and their OpenAPI description (policyFilterVariables, POLICY_FILTER_PARAMETERS),
 * and the SQL predicate over the policy row `p` (policyFilterPredicate), so a filter added here
 * reaches every list, search and surface at once.
 *
 * No filter has an index of its own: status and billing status depend on today, and a
 * coverage in effect on a change's date. Each list walks its index range in its order and
 * checks the filters on each policy, at most STATUS_FILTER_WALK policies a page (policy.reads.ts;
 * docs/decisions.md, "How the status filter is bounded"), so every combination costs the same
 * bounded walk.
 */
export interface PolicyFilter {
  status: PolicyStatus | null;
  coverageSlug: string | null;
  billingStatus: BillingStatus | null;
  effectiveFrom: string | null;
  effectiveTo: string | null;
}
export type PolicyFilterName = keyof PolicyFilter;

interface FilterDeclaration {
  /** The GraphQL argument's type (a closed set's enum, else String). */
  graphqlType: () => object;
  description: string;
  /** The REST parameter's OpenAPI schema. */
  schema: Readonly<Record<string, unknown>>;
  /** What is wrong with a value given as text, or null. */
  problem(value: string): string | null;
  /**
   * The predicate over `p`. Closed sets are written into the statement (one statement per value);
   * other values are read from the statement's `position.filter` (a JSON object of them).
   */
  predicate(value: string, graceDays: number): string;
}

const DATE_SCHEMA = { type: 'string', format: 'date' } as const;
const datePredicate = (operator: '>=' | '<=', name: string) => () => `p.effective_date ${operator} (position.filter ->> '${name}')::date`;
const notADate = (value: string) => (isCalendarDate(value) ? null : 'must be a date, YYYY-MM-DD');

const FILTERS: Readonly<Record<PolicyFilterName, FilterDeclaration>> = {
  status: {
    graphqlType: () => PolicyStatus,
    description: 'Only the policies in this status today (UTC)',
    schema: { type: 'string', enum: Object.values(PolicyStatus) },
    problem: (value) => (Object.hasOwn(PolicyStatus, value) ? null : `must be one of ${Object.values(PolicyStatus).join(', ')}`),
    predicate: (value) => STATUS_PREDICATE[value as PolicyStatus],
  },
  coverageSlug: {
    graphqlType: () => String,
    description: 'Only the policies on this plan of the catalog today (UTC): a change may have moved a policy to another plan',
    schema: { type: 'string' },
    problem: (value) => (value.trim() === '' ? 'must be a plan of the coverage catalog' : null),
    predicate: () => `${COVERAGE_TODAY} = position.filter ->> 'coverageSlug'`,
  },
  billingStatus: {
    graphqlType: () => BillingStatusEnum,
    description: 'Only the policies whose billing is in this status today (UTC); with status, both',
    schema: { type: 'string', enum: [...BILLING_STATUSES] },
    problem: (value) => ((BILLING_STATUSES as readonly string[]).includes(value) ? null : `must be one of ${BILLING_STATUSES.join(', ')}`),
    predicate: (value, graceDays) => `${BILLING_STATUS_SQL(graceDays)} = '${value}'`,
  },
  effectiveFrom: {
    graphqlType: () => String,
    description: 'Only the policies whose effectiveDate is on or after this date (YYYY-MM-DD)',
    schema: DATE_SCHEMA,
    problem: notADate,
    predicate: datePredicate('>=', 'effectiveFrom'),
  },
  effectiveTo: {
    graphqlType: () => String,
    description: 'Only the policies whose effectiveDate is on or before this date (YYYY-MM-DD)',
    schema: DATE_SCHEMA,
    problem: notADate,
    predicate: datePredicate('<=', 'effectiveTo'),
  },
};

export const POLICY_FILTER_NAMES = Object.keys(FILTERS) as PolicyFilterName[];

/** The plan in effect today over `p`: the latest state row valid today holds it (the first holds the policy's own). */
const COVERAGE_TODAY = `(select s.fields ->> 'coverageSlug' from policy_state s
  where s.policy_id = p.id and s.valid_from <= ${TODAY_SQL} order by s.version desc limit 1)`;

/**
 * The billing status today over `p` (contract section 19; the same rule as billing.ts's
 * `billingOf`, checked against the reads in test/e2e/billing.test.ts): from the latest state's
 * `dues` and `paid`, what is due by today and by today minus the grace, compared with `paid`.
 */
const BILLING_STATUS_SQL = (graceDays: number) => `(select case
    when x.billed < x.paid then 'credit' when x.overdue > x.paid then 'past_due' when x.billed > x.paid then 'due' else 'settled' end
  from (select s.paid,
      (select coalesce(sum((d ->> 1)::bigint), 0) from jsonb_array_elements(s.dues) d where (d ->> 0)::date <= ${TODAY_SQL}) as billed,
      (select coalesce(sum((d ->> 1)::bigint), 0) from jsonb_array_elements(s.dues) d
        where (d ->> 0)::date <= ${TODAY_SQL} - ${Math.trunc(graceDays)}) as overdue
    from policy_state s where s.policy_id = p.id order by s.version desc limit 1) x)`;

/** The GraphQL arguments of the filters, after those of `Base` (a page's, a search's), each nullable: absent is every policy. */
export function PolicyFilterArgs<T extends ClassType>(Base: T) {
  @ArgsType()
  class Filtered extends Base {
    status?: PolicyStatus | null;
    coverageSlug?: string | null;
    billingStatus?: BillingStatus | null;
    effectiveFrom?: string | null;
    effectiveTo?: string | null;
  }
  for (const name of POLICY_FILTER_NAMES) {
    Field(FILTERS[name].graphqlType, { nullable: true, description: FILTERS[name].description })(Filtered.prototype, name);
  }
  return Filtered;
}

/** A filter with its grace (billingStatus's `past_due` needs BILLING_GRACE_DAYS), as a list's key: its JSON text, or null for none. */
export type PolicyFilterKey = string & { readonly policyFilterKey: true };
interface KeyedFilter {
  filter: Partial<PolicyFilter>;
  graceDays: number;
}

/**
 * The filter given to a list or a search, checked: every value's problem at once (a 400 naming
 * each argument), a coverageSlug against the catalog (contract section 18: no silent typos), and
 * an effectiveFrom after effectiveTo (an empty range is a mistake). Returns the list's key.
 */
export async function policyFilterOf(
  args: Partial<Record<PolicyFilterName, string | null>>,
  graceDays: number,
): Promise<PolicyFilterKey | null> {
  const given = POLICY_FILTER_NAMES.flatMap((name) => (args[name] == null ? [] : [[name, String(args[name])] as const]));
  const errors: Array<{ path: string; message: string }> = given.flatMap(([path, value]) => {
    const message = FILTERS[path].problem(value);
    return message ? [{ path, message }] : [];
  });
  const filter = Object.fromEntries(given) as Partial<PolicyFilter>;
  if (filter.coverageSlug && !errors.some((error) => error.path === 'coverageSlug') && !(await isCatalogPlan(filter.coverageSlug))) {
    errors.push(unknownPlan());
  }
  const { effectiveFrom: from, effectiveTo: to } = filter;
  if (from && to && errors.length === 0 && from > to) errors.push({ path: 'effectiveFrom', message: 'must be on or before effectiveTo' });
  if (errors.length > 0) throw badUserInput(errors);
  return given.length === 0 ? null : (JSON.stringify({ filter, graceDays } satisfies KeyedFilter) as PolicyFilterKey);
}

/** The key of a filter known to be valid (a list's own defaults, `npm run explain`). */
export function policyFilterKey(filter: Partial<PolicyFilter>, graceDays = 0): PolicyFilterKey | null {
  const given = Object.fromEntries(POLICY_FILTER_NAMES.flatMap((name) => (filter[name] == null ? [] : [[name, filter[name]]])));
  return Object.keys(given).length === 0 ? null : (JSON.stringify({ filter: given, graceDays } satisfies KeyedFilter) as PolicyFilterKey);
}

/** The statement's `position.filter` parameter: the values the predicate reads (null for none). */
export function policyFilterParameter(key: PolicyFilterKey | null): string | null {
  return key === null ? null : JSON.stringify((JSON.parse(key) as KeyedFilter).filter);
}

/**
 * The SQL predicate over `p` a key stands for, and the shape it is built once for: the closed
 * sets' values and the grace are in the text (from checked sets and an integer only), the other
 * values are parameters. Null for no filter.
 */
export function policyFilterPredicate(key: PolicyFilterKey | null): { shape: string; sql: string } | null {
  if (key === null) return null;
  const { filter, graceDays } = JSON.parse(key) as KeyedFilter;
  const names = POLICY_FILTER_NAMES.filter((name) => filter[name] != null);
  const closed = (name: PolicyFilterName) => name === 'status' || name === 'billingStatus';
  for (const name of names.filter(closed)) if (FILTERS[name].problem(String(filter[name]))) throw new Error(`not a policy filter: ${key}`);
  return {
    shape: names.map((name) => (closed(name) ? `${name}=${filter[name]}` : name)).join('&') + `&grace=${Math.trunc(graceDays)}`,
    sql: names.map((name) => `(${FILTERS[name].predicate(String(filter[name]), graceDays)})`).join(' and '),
  };
}

/**
 * The filters as REST variables, read from the query string by `read` (the route's own reader
 * of a parameter given once): the closed sets checked here (a wrong one is a 400 on its name,
 * never a GraphQL variable error), the others passed on for policyFilterOf to check.
 */
export function policyFilterVariables(read: (name: string) => string | undefined): Record<PolicyFilterName, string | null> {
  const values = Object.fromEntries(POLICY_FILTER_NAMES.map((name) => [name, read(name) ?? null])) as Record<
    PolicyFilterName,
    string | null
  >;
  const errors = (['status', 'billingStatus'] as const).flatMap((path) => {
    const message = values[path] === null ? null : FILTERS[path].problem(values[path]);
    return message ? [{ path, message }] : [];
  });
  if (errors.length > 0) throw badUserInput(errors);
  return values;
}

/** The filters as the REST routes declare their query parameters (rest/query-parameters.ts), OpenAPI's written from them. */
export const POLICY_FILTER_PARAMETERS: ReadonlyArray<{ name: PolicyFilterName; schema: Record<string, unknown>; description: string }> =
  POLICY_FILTER_NAMES.map((name) => ({
    name,
    schema: { ...FILTERS[name].schema },
    description: `${FILTERS[name].description}; absent: every policy`,
  }));
