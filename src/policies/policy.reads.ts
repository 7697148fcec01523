import type { SqlClient } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess } from '../database/sql.js';
import { jsonObject, readColumnsOf, selectList, type ReadColumns, type ReadOf } from '../database/read-model.js';
import { notFound } from '../errors/errors.js';
import { ORGANIZATION_JSON, type OrganizationRead } from '../organizations/organization.reads.js';
import { isPolicyNumber, isUuid } from '../values/identifiers.js';
import type { CancellationMethod, CancellationReason } from './ledger/cancellation-charges.js';
import type { Due } from './ledger/billing.js';
import type { Charge } from './charge.entity.js';
import type { Policy } from './policy.entity.js';
import { POLICY_WRITE } from './policy.writes.js';
import { TODAY_SQL } from './policy-status.js';
import { policyFilterParameter, policyFilterPredicate, type PolicyFilterKey } from './policy-filters.js';
import { pages, type Batch } from '../graphql/batch.js';
import { uuidArray } from '../database/sql.js';

/** The policy's reads (see organization.reads.ts for why plain rows). */

type HiddenPolicy = 'organization' | 'charges' | 'createdBySub' | 'createdAt' | 'renewalOfId';
type HiddenCharge = 'policy' | 'sequence';

/**
 * A policy as reads serve it, over the row alias `p`: every column of its write map
 * (policy.writes.ts) but the hidden ones. Dates arrive as `YYYY-MM-DD` text (MikroORM's pg type
 * parsers); the bigint as text, converted by policyRead.
 */
export const POLICY_COLUMNS = {
  ...readColumnsOf('p', POLICY_WRITE, ['createdBySub', 'renewalOfId']),
  number: 'p.number::text',
} as const satisfies ReadColumns<Policy, HiddenPolicy, 'organizationId'>;

export const CHARGE_COLUMNS = {
  id: 'c.id',
  type: 'c.type',
  periodStart: 'c.period_start',
  periodEnd: 'c.period_end',
  dueDate: 'c.due_date',
  amount: 'c.amount',
  currency: 'c.currency',
  status: 'c.status',
  transactionId: 'c.transaction_id',
  reverses: 'c.reverses',
} as const satisfies ReadColumns<Charge, HiddenCharge>;

export type ChargeRead = ReadOf<Charge, HiddenCharge>;
export type PolicyRead = ReadOf<Policy, HiddenPolicy> & {
  organizationId: string;
  /** Present when selected with the policy; otherwise loaded in batches. */
  charges?: ChargeRead[];
  organization?: OrganizationRead;
  /** Selected with every read (POLICY_SELECT, LATEST_STATE); a policy just created has none. */
  cancellation?: CancellationRead | null;
  /** 1 at issue, +1 per transaction (contract section 14, "Versions and ordering"); from LATEST_STATE. */
  version: number;
  /** Selected with every read (RENEWAL_LINKS): the numbers of the policy this one renews and of its successor. */
  renewalOf?: number | null;
  renewedBy?: number | null;
  /** Selected with a page's policies (LEDGER_LENGTH): what the page pays for their charges, and the rows the charges loader reads. */
  ledgerLength?: number;
  /** From LATEST_STATE (contract section 19): what the charges due each day sum to, and payments minus refunds; `billing` is computed from them. */
  dues: Due[];
  paid: number;
};

export interface CancellationRead {
  effectiveDate: string;
  reason: CancellationReason;
  method: CancellationMethod;
  credited: number;
  fee: number;
  createdAt: string;
}

/**
 * The policy's stored state (policy_state, written with each transaction, payment and refund:
 * ledger/post), over the row alias `p`. The latest row: the policy's `version`, the cancellation
 * in force, also while it lies in the future (contract section 14), and billing's basis (`paid`
 * and `dues`, contract section 19: policy-billing.ts computes the summary for today), as one JSON object. One probe of the table's
 * primary key (policy_id, version) from its end.
 */
export const LATEST_STATE = `(select json_build_object('version', s.version, 'cancellation', s.cancellation, 'paid', s.paid, 'dues', s.dues)
  from policy_state s where s.policy_id = p.id order by s.version desc limit 1)`;

/**
 * The fields in effect today (the changeable ones and `coverage`): those of the latest state row
 * valid today. The first row holds from the start, so there always is one; a change dated after
 * today is in a row this skips until its day. policyRead lays them over the policy's own columns.
 * Null when that row holds from the start ('-infinity': the first, and a payment's before any
 * change): its fields are the policy's own columns (the opening writes both from the same
 * values), so a policy without a change in effect parses no JSON for them.
 */
export const FIELDS_TODAY = `(select case when s.valid_from <> '-infinity' then s.fields end from policy_state s
  where s.policy_id = p.id and s.valid_from <= ${TODAY_SQL} order by s.version desc limit 1)`;

/**
 * The renewal links of contract section 14 as policy numbers (text, converted by policyRead):
 * the policy `renewal_of` names, and the one naming this policy (unique, by its index).
 */
export const RENEWAL_LINKS = `(select r.number::text from policy r where r.id = p.renewal_of) as "renewalOf",
  (select r.number::text from policy r where r.renewal_of = p.id) as "renewedBy"`;

export const POLICY_SELECT = `${selectList(POLICY_COLUMNS)}, ${LATEST_STATE} as state, ${RENEWAL_LINKS}, ${FIELDS_TODAY} as "inEffect"`;
export const CHARGE_SELECT = selectList(CHARGE_COLUMNS);

/**
 * How many charges the policy's ledger holds (over `p`): charges are numbered from 0 with no gap
 * (policy-ledger.ts writes them under the policy's row lock), so the last one's number plus one,
 * one probe of `charge_sequence_unique` whatever the ledger's length. A page counts each ledger
 * at this length (contract section 14, "Bounded ledgers") before any charge is read.
 */
export const LEDGER_LENGTH = `coalesce((select c.sequence + 1 from charge c where c.policy_id = p.id order by c.sequence desc limit 1), 0)`;

/** A policy's charges as one JSON array, in period order (a correlated subquery over `p`). */
export const CHARGES_JSON = `(select coalesce(json_agg(${jsonObject(CHARGE_COLUMNS)} order by c.sequence), '[]') from charge c where c.policy_id = p.id)`;

/** The access-checked read of one policy by a unique column, given the access predicate. */
const policyBy = (column: 'number' | 'id') =>
  perAccess(
    (access) =>
      `select ${POLICY_SELECT}, ${CHARGES_JSON} as charges, ${ORGANIZATION_JSON} as organization
     from policy p join organization o on o.id = p.organization_id
     where p.${column} = ? and ${access}`,
  );

/** By number (REST and `policy(number:)`; also for `npm run explain`), and by id (`node(id:)`). */
export const POLICY_BY_NUMBER = policyBy('number');
export const POLICY_BY_ID = policyBy('id');

/**
 * Built once per filter shape (policy-filters.ts: which filters, the closed sets' values, the
 * grace); none: every policy. The other values are the statement's `position.filter` parameter.
 */
function perFilter(
  build: (predicate: string | null) => (access: string) => string,
): (filter: PolicyFilterKey | null) => (access: string) => string {
  const built = new Map<string | null, (access: string) => string>();
  return (filter) => {
    const predicate = policyFilterPredicate(filter);
    let statement = built.get(predicate?.shape ?? null);
    if (statement === undefined) built.set(predicate?.shape ?? null, (statement = build(predicate?.sql ?? null)));
    return statement;
  };
}

/**
 * The most policies one page of a status-filtered list walks. A page stops when it is full or
 * after this many policies, whichever comes first; a page that stopped short answers with
 * `hasNextPage` and a cursor at the last policy walked (docs/decisions.md, "How the status
 * filter is bounded"). So a page costs at most this many index rows, however rare the status.
 */
export const STATUS_FILTER_WALK = 1000;

/**
 * Where each owner's policies lie, in creation order, after `position.after`: an organization's
 * own by `policy (organization_id, seq)`; a subtree's by a range of `policy_ancestor`'s primary
 * key joined to `policy` by its unique `seq`, so a page costs its own rows whatever the
 * subtree's size (see the migration policy_ancestry and docs/access-rule.md). `positions` is the
 * same range from the index alone (for the end of a walk).
 */
const RANGES = {
  own: {
    from: 'policy p where p.organization_id = top.id and p.seq > position.after order by p.seq',
    positions: 'select p.seq from policy p where p.organization_id = top.id and p.seq > position.after order by p.seq',
  },
  subtree: {
    from: 'policy_ancestor a join policy p on p.seq = a.policy_seq where a.ancestor_id = top.id and a.policy_seq > position.after order by a.policy_seq',
    positions:
      'select a.policy_seq as seq from policy_ancestor a where a.ancestor_id = top.id and a.policy_seq > position.after order by a.policy_seq',
  },
} as const;

/** The accessible owners among the given ids. Descendants of an accessible organization are accessible, so the rule is checked once, on the owner. */
const ACCESSIBLE_OWNERS = (access: string) => `top as (select o.id from organization o where o.id = any(?::uuid[]) and ${access})`;

/**
 * The policies pager's statement (see `pages` in graphql/batch.ts): a page of every owner at once,
 * each a lateral range of one index. Parameters: the owner ids, the access rule's, the position
 * to continue after, the page size, the filter's values (policy-filters.ts). With a filter, the
 * range is cut at STATUS_FILTER_WALK policies before the filter (it skips the policies it does not keep).
 */
const policiesPage = (range: keyof typeof RANGES) =>
  perFilter((predicate) =>
    perAccess(
      (access) => `with ${ACCESSIBLE_OWNERS(access)},
  position as (select ?::bigint as after, ?::int as size, ?::jsonb as filter)
select page.* from top cross join position cross join lateral (
  select ${POLICY_SELECT}, ${LEDGER_LENGTH} as "ledgerLength", top.id as owner, p.seq
  from ${
    predicate
      ? `(select p.* from ${RANGES[range].from} limit ${STATUS_FILTER_WALK}) p where ${predicate} order by p.seq`
      : // Not a subquery: the planner would plan it for every row of the range, not for a page.
        RANGES[range].from
  } limit position.size
) page order by page.owner, page.seq`,
    ),
  );

export const POLICIES_PAGE = policiesPage('own');
/** The same page over each organization's whole subtree (`includeDescendants`). */
export const SUBTREE_POLICIES_PAGE = policiesPage('subtree');

/**
 * For a filtered page that came back short: where its walk stopped, per owner. A row (the
 * STATUS_FILTER_WALK-th position) when the walk was cut, none when it reached the end of the
 * list. Parameters: the owner ids, the access rule's, the position the page continued after.
 */
const walkEnd = (range: keyof typeof RANGES) =>
  perAccess(
    (access) => `with ${ACCESSIBLE_OWNERS(access)},
  position as (select ?::bigint as after)
select top.id as owner, walked.seq from top cross join position cross join lateral (
  ${RANGES[range].positions} offset ${STATUS_FILTER_WALK - 1} limit 1
) walked`,
  );

export const POLICIES_WALK_END = walkEnd('own');
export const SUBTREE_POLICIES_WALK_END = walkEnd('subtree');

/**
 * Charges are only reached through a policy that passed the access rule, from a page that
 * counted its ledger (LEDGER_LENGTH): each policy's first `length` charges, so the statement
 * reads no more rows than the page paid for (a charge written since is in the next read, with
 * the version it made). Parameters: the policy ids, their lengths.
 */
export const CHARGES_BY_POLICY = `select ${CHARGE_SELECT}, k.id as parent
  from unnest(?::uuid[], ?::int[]) k(id, length) cross join lateral (
    select c.* from charge c where c.policy_id = k.id order by c.sequence limit k.length
  ) c order by k.id, c.sequence`;

/** A policy's charges, at most `length` of them. */
export interface LedgerKey {
  id: string;
  length: number;
}

/** The policies' batched reads (`ctx.load(batch, key)`, graphql/batch.ts): an organization's own policies, filtered (policy-filters.ts). */
export const policyPages = pages<PolicyRead, PolicyFilterKey>({
  page: (access, filter) => POLICIES_PAGE(filter)(access),
  params: (filter) => [policyFilterParameter(filter)],
  view: policyRead,
  walkEnd: POLICIES_WALK_END,
});
/** The policies of an organization's whole subtree (`includeDescendants`). */
export const subtreePolicyPages = pages<PolicyRead, PolicyFilterKey>({
  page: (access, filter) => SUBTREE_POLICIES_PAGE(filter)(access),
  params: (filter) => [policyFilterParameter(filter)],
  view: policyRead,
  walkEnd: SUBTREE_POLICIES_WALK_END,
});
/** The charges of a page's policies, batched (`ctx.load(chargesOf, { id, length })`). */
export const chargesOf: Batch<LedgerKey, ChargeRead[]> = {
  cacheKey: (key) => key.id,
  async read(keys, { db }) {
    const rows = await db.query<ChargeRead & { parent: string }>(CHARGES_BY_POLICY, [
      uuidArray(keys.map((key) => key.id)),
      `{${keys.map((key) => Math.max(0, Math.trunc(key.length))).join(',')}}`,
    ]);
    const groups = new Map<string, ChargeRead[]>(keys.map((key) => [key.id, []]));
    for (const { parent, ...charge } of rows) groups.get(parent)?.push(charge);
    return keys.map((key) => groups.get(key.id) ?? []);
  },
};

/**
 * A row selected with POLICY_SELECT: the bigints (the number and the renewal links) converted,
 * the fields in effect today (`inEffect`, FIELDS_TODAY) over the policy's own, and the version
 * and cancellation of its latest state (LATEST_STATE). Every read of a policy comes through here.
 */
export function policyRead(row: Record<string, unknown>): PolicyRead {
  const { inEffect, state, ...policy } = row;
  const latest = state as { version: number; cancellation: CancellationRead | null; paid: number; dues: Due[] } | null;
  return {
    ...(policy as unknown as PolicyRead),
    ...(inEffect as Partial<PolicyRead> | null),
    version: latest?.version ?? 1,
    cancellation: latest?.cancellation ?? null,
    dues: latest?.dues ?? [],
    paid: Number(latest?.paid ?? 0),
    number: Number(row.number),
    renewalOf: numberOrNull(row.renewalOf),
    renewedBy: numberOrNull(row.renewedBy),
  };
}

const numberOrNull = (value: unknown): number | null => (value == null ? null : Number(value));

export const policyNotFound = () => notFound('Policy not found.');

/**
 * The policy with this number if the principal may access its organization, with its charges
 * and organization: one SQL statement.
 */
export function findAccessiblePolicy(db: SqlClient, principal: Principal, number: number): Promise<PolicyRead | null> {
  return isPolicyNumber(number) ? findOne(db, principal, POLICY_BY_NUMBER, number) : Promise.resolve(null);
}

/** The same by the policy's id. */
export function findAccessiblePolicyById(db: SqlClient, principal: Principal, id: string): Promise<PolicyRead | null> {
  return isUuid(id) ? findOne(db, principal, POLICY_BY_ID, id.toLowerCase()) : Promise.resolve(null);
}

async function findOne(
  db: SqlClient,
  principal: Principal,
  statement: (access: string) => string,
  key: unknown,
): Promise<PolicyRead | null> {
  const { sql, params } = accessPredicate('o', principal);
  const [row] = await db.query(statement(sql), [key, ...params]);
  return row ? policyRead(row) : null;
}
