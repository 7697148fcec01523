import pg from 'pg';
import { premiumSchedule } from '../src/policies/ledger/premium-schedule.js';
import { isCalendarDate } from '../src/values/calendar-date.js';

/**
 * The benchmark baseline's answers (bench-baseline.ts serves them over node:http): one SQL
 * statement per operation, with the same access check as the service, whose text is the
 * service's body byte for byte (contract section 18's shapes). For a policy PostgreSQL writes
 * the JSON text itself, as JSON.stringify would (json_build_object puts spaces around keys,
 * which the service does not send); an organization's address keeps the JSON its client sent,
 * at any depth, so its row comes back as JSON, which pg parses and JSON.stringify writes, as the
 * service does. `npm run bench:check` and test/in-process/bench-baseline.test.ts compare them.
 */
const ACCESS = '($2::uuid = any(o.path) or $3::text = any(o.owner_subs))';
const TODAY = "(now() at time zone 'UTC')::date";

/** A SQL value as the JSON text JSON.stringify writes for it; SQL null as `null`. */
const json = (sql: string) => `coalesce(to_json(${sql})::text, 'null')`;

/** `{"key":value,...}` as JSON.stringify writes it, from each value's JSON text, in this order. */
function object(fields: Record<string, string>): string {
  const parts = Object.entries(fields).map(([key, value], index) => `'${index === 0 ? '{' : ','}"${key}":' || ${value}`);
  return `${parts.join(' || ')} || '}'`;
}

/** A JSON array of `item` over the rows of `from`, in `order`. */
const array = (item: string, from: string, order: string) =>
  `(select '[' || coalesce(string_agg(${item}, ',' order by ${order}), '') || ']' from ${from})`;

const CHARGE = object({
  id: json('c.id'),
  type: json('c.type'),
  periodStart: json('c.period_start'),
  periodEnd: json('c.period_end'),
  dueDate: json('c.due_date'),
  amount: 'c.amount::text',
  currency: json('c.currency'),
  status: json('c.status'),
  transactionId: json('c.transaction_id'),
  reverses: json('c.reverses'),
});

/** A coverage snapshot (jsonb) as the Coverage type answers it: its fields in the type's order, the rate as a number (0.9, not 0.900). */
const coverage = (snapshot: string) =>
  object({
    slug: json(`${snapshot} ->> 'slug'`),
    name: json(`${snapshot} ->> 'name'`),
    deductible: json(`(${snapshot} ->> 'deductible')::int`),
    reimbursementRate: json(`(${snapshot} ->> 'reimbursementRate')::float8`),
    annualLimit: json(`(${snapshot} ->> 'annualLimit')::int`),
    monthlyPremium: json(`(${snapshot} ->> 'monthlyPremium')::int`),
    currency: json(`${snapshot} ->> 'currency'`),
  });

/** The policy's organization as a policy shows it. */
const ORGANIZATION_OF_POLICY = object({ id: json('o.id'), name: json('o.name'), parentId: json('o.parent_id') });

/**
 * Beside each policy `p`, from its stored state (policy_state, issue 38): `e`, the latest row
 * valid today (`e.fields`: the changeable fields in effect, `coverage` among them), and `t`, the
 * latest row (`t.version`, the cancellation in force `t.cancellation` and its `t.cancelled_from`).
 */
const IN_EFFECT = `cross join lateral (select s.fields, s.fields -> 'coverage' as coverage from policy_state s
    where s.policy_id = p.id and s.valid_from <= ${TODAY} order by s.version desc limit 1) e`;
const CANCELLATION = `cross join lateral (select s.version, s.cancellation, s.cancelled_from, s.dues, s.paid from policy_state s
    where s.policy_id = p.id order by s.version desc limit 1) t`;

/** BILLING_GRACE_DAYS as the bench runs the service: its default. */
const GRACE_DAYS = 15;

/**
 * Beside `t`, billing's sums today (contract section 19): `b.billed` (due by today), `b.overdue`
 * (due by today less the grace) and `b.next` (the first `[date, cents]` after today).
 */
const BILLING_SUMS = `cross join lateral (select
    (select coalesce(sum((d ->> 1)::bigint), 0) from jsonb_array_elements(t.dues) d where (d ->> 0)::date <= ${TODAY}) as billed,
    (select coalesce(sum((d ->> 1)::bigint), 0) from jsonb_array_elements(t.dues) d where (d ->> 0)::date <= ${TODAY} - ${GRACE_DAYS}) as overdue,
    (select d from jsonb_array_elements(t.dues) d where (d ->> 0)::date > ${TODAY} order by (d ->> 0)::date limit 1) as next) b`;

const BILLING = object({
  billed: 'b.billed::text',
  paid: 't.paid::text',
  balance: '(b.billed - t.paid)::text',
  pastDue: 'greatest(0, b.overdue - t.paid)::text',
  status: json(
    `case when b.billed < t.paid then 'credit' when b.overdue > t.paid then 'past_due' when b.billed > t.paid then 'due' else 'settled' end`,
  ),
  nextDueDate: "coalesce((b.next -> 0)::text, 'null')",
  nextDueAmount: "coalesce((b.next -> 1)::text, 'null')",
});

/**
 * A field a change may set: the value in effect (`e.fields`), else the column (a field added
 * after a state row was written is not in it; the service lays the row over the columns alike).
 */
const fieldToday = (field: string, column: string) => `coalesce((e.fields -> '${field}')::text, ${json(column)})`;

/**
 * A policy `p` (with `o`, `e` and `t` beside it) as REST answers it: every field but cvc in the
 * contract's order, the charges of `chargesFrom` (rows `c`), status, billing (with `b` beside
 * it too), cancellation and renewal links (contract sections 14, 18 and 19).
 */
function policy(chargesFrom = 'charge c where c.policy_id = p.id'): string {
  return object({
    id: json('p.id'),
    number: 'p.number::text',
    internalID: json('p.internal_id'),
    ownerFirstname: fieldToday('ownerFirstname', 'p.owner_firstname'),
    ownerLastname: fieldToday('ownerLastname', 'p.owner_lastname'),
    ownerDOB: fieldToday('ownerDOB', 'p.owner_dob'),
    petName: fieldToday('petName', 'p.pet_name'),
    petDOB: fieldToday('petDOB', 'p.pet_dob'),
    effectiveDate: json('p.effective_date'),
    expirationDate: json('p.expiration_date'),
    coverageSlug: fieldToday('coverageSlug', 'p.coverage_slug'),
    coverage: coverage('e.coverage'),
    charges: array(CHARGE, chargesFrom, 'c.sequence'),
    organization: ORGANIZATION_OF_POLICY,
    // Today in UTC: a cancellation in effect wins over expiry; one ahead changes nothing yet.
    status: json(`case when t.cancelled_from <= ${TODAY} then 'cancelled' when ${TODAY} >= p.expiration_date then 'expired'
      when ${TODAY} < p.effective_date then 'pending' else 'active' end`),
    billing: BILLING,
    cancellation: `case when t.cancellation is null then 'null' else ${object({
      effectiveDate: "(t.cancellation -> 'effectiveDate')::text",
      reason: "(t.cancellation -> 'reason')::text",
      method: "(t.cancellation -> 'method')::text",
      credited: "(t.cancellation -> 'credited')::text",
      fee: "(t.cancellation -> 'fee')::text",
      createdAt: "(t.cancellation -> 'createdAt')::text",
    })} end`,
    renewalOf: "coalesce((select r.number::text from policy r where r.id = p.renewal_of), 'null')",
    renewedBy: "coalesce((select r.number::text from policy r where r.renewal_of = p.id), 'null')",
    version: 't.version::text',
  });
}

const POLICY = `select ${policy()} as body
  from policy p join organization o on o.id = p.organization_id ${IN_EFFECT} ${CANCELLATION} ${BILLING_SUMS}
  where p.number = $1 and ${ACCESS}`;
/** The benchmark's GraphQL selection (bench-support.ts, POLICY_QUERY), as the service's GraphQL answer. */
const GRAPHQL_POLICY = `select '{"data":{"policy":' || ${object({
  number: 'p.number::text',
  coverage: coverage('e.coverage'),
  charges: array(CHARGE, 'charge c where c.policy_id = p.id', 'c.sequence'),
  organization: ORGANIZATION_OF_POLICY,
})} || '}}' as body
  from policy p join organization o on o.id = p.organization_id ${IN_EFFECT}
  where p.number = $1 and ${ACCESS}`;
/**
 * A page of 20 of a subtree's policies (spec section 10): the same policy_ancestor range the
 * service reads, one more to know whether more follow; the cursor is the 20th's position,
 * `policy:<seq>` in base64url.
 */
const SUBTREE_PAGE = `with top as (select o.id from organization o where o.id = $1 and ${ACCESS}),
  page as (select p.* from top cross join lateral (
    select p.* from policy_ancestor a join policy p on p.seq = a.policy_seq
    where a.ancestor_id = top.id order by a.policy_seq limit 21) p)
  select case when not exists (select 1 from top) then null else
    '{"data":' || ${array(
      policy(),
      `(select * from page order by seq limit 20) p join organization o on o.id = p.organization_id ${IN_EFFECT} ${CANCELLATION} ${BILLING_SUMS}`,
      'p.seq',
    )} ||
    ',"hasMore":' || (select case when count(*) > 20 then 'true' else 'false' end from page) ||
    ',"nextCursor":' || case when (select count(*) from page) > 20 then (select to_json(translate(encode(convert_to('policy:' || seq, 'UTF8'), 'base64'), '+/=', '-_'))::text
      from page order by seq offset 19 limit 1) else 'null' end || '}' end as body`;

/** An address as REST answers it: flat, its extra properties as sent first, then the named ones that are set, in the type's order. */
const ADDRESS_FIELDS = "array['line1', 'line2', 'division', 'city', 'postal', 'country']";
const address = (column: string) => `case when ${column} is null then null else (
    select coalesce(json_object_agg(f.key, f.value order by f.part, f.n), '{}') from (
      select x.key, x.value, 0 as part, x.n from jsonb_each(${column}) with ordinality as x(key, value, n) where x.key <> all(${ADDRESS_FIELDS})
      union all
      select y.key, ${column} -> y.key, 1, y.n from unnest(${ADDRESS_FIELDS}) with ordinality as y(key, n) where ${column} ->> y.key is not null) f) end`;
/**
 * An organization as REST answers it (contract section 18): its create shape, bank account
 * numbers and owners' tax ids shown only as their last four, and its version (the ETag).
 */
const ORGANIZATION = `select json_build_object('id', o.id, 'name', o.name, 'parentId', o.parent_id, 'version', o.version,
    'legalName', o.legal_name, 'legalType', o.legal_type, 'taxId', o.tax_id, 'description', o.description, 'logo', o.logo, 'type', o.type,
    'descriptor', o.descriptor, 'phone', o.phone, 'email', o.email, 'website', o.website, 'address', ${address('o.address')},
    'bankAccounts', (select coalesce(json_agg(json_build_object('id', b.id, 'nickname', b.nickname, 'routing', b.routing,
      'accountLast4', b.account_last4) order by b.position), '[]') from bank_account b where b.organization_id = o.id),
    'owners', (select coalesce(json_agg(json_build_object('id', w.id, 'firstname', w.firstname, 'lastname', w.lastname,
      'birthdate', w.birthdate, 'taxIdLast4', w.tax_id_last4, 'email', w.email, 'phone', w.phone, 'ownership', w.ownership,
      'address', ${address('w.address')}) order by w.position), '[]') from owner w where w.organization_id = o.id)) as body
  from organization o where o.id = $1 and ${ACCESS}`;
/** A create in one statement, answered as a read answers the new policy: nothing in effect but what was written. */
const CREATE_POLICY = `with o as (select o.id, o.name, o.parent_id from organization o where o.id = $1 and ${ACCESS}),
  plan as (select * from coverage_plan where slug = $4),
  p as (
    insert into policy (id, number, organization_id, internal_id, owner_firstname, owner_lastname, owner_dob, pet_name, pet_dob,
                        effective_date, expiration_date, coverage_slug, coverage, created_by_sub)
    select gen_random_uuid(), next_policy_number(), o.id, $5, $6, $7, $8, $9, $10, $11, $12, plan.slug,
      jsonb_build_object('slug', plan.slug, 'name', plan.name, 'deductible', plan.deductible, 'reimbursementRate', plan.reimbursement_rate,
        'annualLimit', plan.annual_limit, 'monthlyPremium', plan.monthly_premium, 'currency', plan.currency), $3
    from o, plan returning *),
  issued as (
    insert into policy_transaction (id, policy_id, type, effective_date, created_by_sub)
    select gen_random_uuid(), p.id, 'issuance', p.effective_date, $3 from p returning id),
  charges as (
    insert into charge (id, policy_id, transaction_id, sequence, type, period_start, period_end, due_date, amount, currency, status)
    select gen_random_uuid(), p.id, issued.id, x.sequence, 'premium', x.start, x.finish, x.start, x.amount, 'USD', 'scheduled'
    from p, issued, jsonb_to_recordset($13::jsonb) as x(sequence int, start date, finish date, amount int) returning *),
  stated as (
    insert into policy_state (policy_id, version, transaction_id, valid_from, fields, dues, paid, unpaid_from)
    select p.id, 1, issued.id, '-infinity', jsonb_build_object('petName', p.pet_name, 'petDOB', p.pet_dob,
      'ownerFirstname', p.owner_firstname, 'ownerLastname', p.owner_lastname, 'ownerDOB', p.owner_dob,
      'coverageSlug', p.coverage_slug, 'coverage', p.coverage),
      (select jsonb_agg(jsonb_build_array(x.start, x.amount) order by x.start) from jsonb_to_recordset($13::jsonb) as x(start date, amount int)),
      0, p.effective_date
    from p, issued returning version, fields, cancellation, cancelled_from, dues, paid)
  select ${policy('charges c')} as body
  from p cross join o cross join lateral (select stated.fields, stated.fields -> 'coverage' as coverage from stated) e
    cross join stated t ${BILLING_SUMS}`;

export type Principal = { sub: string; org: string | null };

/** What the baseline answers a request: its status, its JSON text, and an organization's or a policy's ETag. */
export interface BaselineAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** A policy's ETag: its version, the last key of the answer (read from its end, without parsing it). */
function versionTag(policy: string): string {
  return `"${/"version":(\d+)}$/.exec(policy)![1]}"`;
}

/** The `body` of a statement's one row, or null. */
export type StatementRunner = <Body = string>(sql: string, params: unknown[]) => Promise<Body | null>;

/**
 * Runs the statements on `pool` as named prepared statements: after the first use on a
 * connection only name and values travel. Text comes back as is; json parsed by pg.
 */
export function preparedStatements(pool: pg.Pool): StatementRunner {
  const names = new Map<string, string>();
  return async <Body = string>(sql: string, params: unknown[]): Promise<Body | null> => {
    let name = names.get(sql);
    if (!name) names.set(sql, (name = `s${names.size}`));
    const { rows } = await pool.query({ name, text: sql, values: params });
    return (rows[0]?.body ?? null) as Body | null;
  };
}

const NOT_FOUND: BaselineAnswer = { status: 404, body: '{"code":"NOT_FOUND"}' };
const BAD_USER_INPUT: BaselineAnswer = { status: 400, body: '{"code":"BAD_USER_INPUT"}' };

/** The baseline's answer to an authenticated request: `url` with its query string, `body` the parsed JSON of a POST. */
export async function baselineAnswer(
  pool: pg.Pool,
  one: StatementRunner,
  who: Principal,
  method: string,
  url: string,
  body: () => Promise<any>,
): Promise<BaselineAnswer> {
  let match: RegExpExecArray | null;
  if (method === 'GET' && (match = /^\/api\/v1\/policy\/([1-9][0-9]{0,15})$/.exec(url))) {
    const policy = await one(POLICY, [Number(match[1]), who.org, who.sub]);
    return policy ? { status: 200, body: policy, headers: { etag: versionTag(policy) } } : NOT_FOUND;
  }
  if (method === 'GET' && (match = /^\/api\/v1\/organization\/([0-9a-f-]{36})$/.exec(url))) {
    const organization = await one<{ version: number }>(ORGANIZATION, [match[1], who.org, who.sub]);
    if (!organization) return NOT_FOUND;
    return { status: 200, body: JSON.stringify(organization), headers: { etag: `"${organization.version}"` } };
  }
  if (method === 'GET' && (match = /^\/api\/v1\/policy\?organizationId=([0-9a-f-]{36})&includeDescendants=true&limit=20$/.exec(url))) {
    const page = await one(SUBTREE_PAGE, [match[1], who.org, who.sub]);
    return page ? { status: 200, body: page } : NOT_FOUND;
  }
  if (method === 'POST' && url === '/graphql') {
    const { variables } = await body();
    const policy = await one(GRAPHQL_POLICY, [variables.number, who.org, who.sub]);
    return { status: 200, body: policy ?? '{"data":{"policy":null}}' };
  }
  if (method === 'POST' && url === '/api/v1/policy') {
    const input = await body();
    for (const field of ['ownerFirstname', 'ownerLastname', 'petName', 'coverageSlug', 'organizationId']) {
      if (typeof input[field] !== 'string' || input[field].trim() === '') return BAD_USER_INPUT;
    }
    if (!isCalendarDate(input.effectiveDate) || !isCalendarDate(input.expirationDate) || input.expirationDate <= input.effectiveDate) {
      return BAD_USER_INPUT;
    }
    const monthly = await pool.query('select monthly_premium from coverage_plan where slug = $1', [input.coverageSlug]);
    if (monthly.rows.length === 0) return BAD_USER_INPUT;
    const schedule = premiumSchedule({
      effectiveDate: input.effectiveDate,
      expirationDate: input.expirationDate,
      monthlyPremium: monthly.rows[0].monthly_premium,
      currency: 'USD',
    }).map((charge, sequence) => ({ sequence, start: charge.periodStart, finish: charge.periodEnd, amount: charge.amount }));
    const policy = await one(CREATE_POLICY, [
      input.organizationId,
      who.org,
      who.sub,
      input.coverageSlug,
      input.internalID ?? null,
      input.ownerFirstname,
      input.ownerLastname,
      input.ownerDOB ?? null,
      input.petName,
      input.petDOB ?? null,
      input.effectiveDate,
      input.expirationDate,
      JSON.stringify(schedule),
    ]);
    return policy ? { status: 200, body: policy, headers: { etag: versionTag(policy) } } : NOT_FOUND;
  }
  return NOT_FOUND;
}
