import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { premiumSchedule } from '../src/policies/premium-schedule.js';
import { isCalendarDate } from '../src/values/calendar-date.js';

/**
 * The benchmark's baseline: the fastest honest code for the same operations. node:http,
 * pg and jose only: verify the same JWT (every request), run one SQL statement with the same
 * access check (PostgreSQL builds the JSON), write it. No framework, no GraphQL, no ORM.
 * Environment: DATABASE_URL, JWT_SECRET, PORT, and BASELINE_WORKERS (default 1): that many
 * processes sharing the port through node:cluster, as the service's WEB_CONCURRENCY does.
 */
const secret = new TextEncoder().encode(process.env.JWT_SECRET);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
pool.on('error', () => undefined);

const ACCESS = '($2::uuid = any(o.path) or $3::text = any(o.owner_subs))';
const CHARGES = `(select json_agg(json_build_object('id', c.id, 'type', c.type, 'periodStart', c.period_start, 'periodEnd', c.period_end,
  'dueDate', c.due_date, 'amount', c.amount, 'currency', c.currency, 'status', c.status,
  'transactionId', c.transaction_id, 'reverses', c.reverses) order by c.sequence)
  from charge c where c.policy_id = p.id)`;
const POLICY = `select json_build_object('number', p.number, 'coverage', p.coverage, 'charges', ${CHARGES},
    'organization', json_build_object('id', o.id, 'name', o.name, 'parentId', o.parent_id))::text as body
  from policy p join organization o on o.id = p.organization_id where p.number = $1 and ${ACCESS}`;
/** A page of 20 of a subtree's policies (spec section 10): the same policy_ancestor range the service reads. */
const SUBTREE_PAGE = `with top as (select o.id from organization o where o.id = $1 and ${ACCESS}),
  page as (select p.*, p.seq as position from top cross join lateral (
    select p.* from policy_ancestor a join policy p on p.seq = a.policy_seq
    where a.ancestor_id = top.id order by a.policy_seq limit 21) p)
  select case when not exists (select 1 from top) then null else json_build_object(
    'data', coalesce((select json_agg(json_build_object('id', p.id, 'number', p.number, 'coverage', p.coverage, 'charges', ${CHARGES},
      'organization', (select json_build_object('id', o.id, 'name', o.name, 'parentId', o.parent_id) from organization o where o.id = p.organization_id))
      order by p.position) from (select * from page order by position limit 20) p), '[]'),
    'hasMore', (select count(*) > 20 from page),
    'nextCursor', (select case when count(*) > 20 then encode(convert_to('policy:' || (select position from page order by position offset 19 limit 1), 'UTF8'), 'base64') end from page))::text end as body`;
const ORGANIZATION = `select json_build_object('id', o.id, 'name', o.name, 'parentId', o.parent_id)::text as body
  from organization o where o.id = $1 and ${ACCESS}`;
const CREATE_POLICY = `with org as (select o.id, o.name, o.parent_id from organization o where o.id = $1 and ${ACCESS}),
  plan as (select * from coverage_plan where slug = $4),
  made as (
    insert into policy (id, number, organization_id, internal_id, owner_firstname, owner_lastname, owner_dob, pet_name, pet_dob,
                        effective_date, expiration_date, coverage_slug, coverage, created_by_sub)
    select gen_random_uuid(), next_policy_number(), org.id, $5, $6, $7, $8, $9, $10, $11, $12, plan.slug,
      jsonb_build_object('slug', plan.slug, 'name', plan.name, 'deductible', plan.deductible, 'reimbursementRate', plan.reimbursement_rate,
        'annualLimit', plan.annual_limit, 'monthlyPremium', plan.monthly_premium, 'currency', plan.currency), $3
    from org, plan returning *),
  issued as (
    insert into policy_transaction (id, policy_id, type, effective_date, created_by_sub)
    select gen_random_uuid(), made.id, 'issuance', made.effective_date, $3 from made returning id),
  charges as (
    insert into charge (id, policy_id, transaction_id, sequence, type, period_start, period_end, due_date, amount, currency, status)
    select gen_random_uuid(), made.id, issued.id, x.sequence, 'premium', x.start, x.finish, x.start, x.amount, 'USD', 'scheduled'
    from made, issued, jsonb_to_recordset($13::jsonb) as x(sequence int, start date, finish date, amount int) returning *)
  select json_build_object('internalID', made.internal_id, 'number', made.number, 'ownerFirstname', made.owner_firstname,
    'ownerLastname', made.owner_lastname, 'ownerDOB', made.owner_dob, 'petName', made.pet_name, 'petDOB', made.pet_dob,
    'effectiveDate', made.effective_date, 'expirationDate', made.expiration_date, 'coverageSlug', made.coverage_slug,
    'coverage', made.coverage,
    'charges', (select json_agg(json_build_object('id', c.id, 'type', c.type, 'periodStart', c.period_start, 'periodEnd', c.period_end,
      'dueDate', c.due_date, 'amount', c.amount, 'currency', c.currency, 'status', c.status,
  'transactionId', c.transaction_id, 'reverses', c.reverses) order by c.sequence) from charges c),
    'organization', (select json_build_object('id', org.id, 'name', org.name, 'parentId', org.parent_id) from org))::text as body
  from made`;

type Principal = { sub: string; org: string | null };

async function principal(req: IncomingMessage): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (!header?.startsWith('Bearer ')) return null;
  try {
    const { payload } = await jwtVerify(header.slice(7), secret, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
    return { sub: payload.sub!, org: typeof payload.org === 'string' ? payload.org : null };
  } catch {
    return null;
  }
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<any> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text);
}

/** Named prepared statements: after the first use on a connection only name and values travel. */
const names = new Map<string, string>();
async function one(sql: string, params: unknown[]): Promise<string | null> {
  let name = names.get(sql);
  if (!name) names.set(sql, (name = `s${names.size}`));
  const { rows } = await pool.query({ name, text: sql, values: params });
  return rows[0]?.body ?? null;
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  try {
    const who = await principal(req);
    if (!who) return send(res, 401, '{"code":"UNAUTHENTICATED"}');
    const url = req.url ?? '';
    let match: RegExpExecArray | null;
    if (req.method === 'GET' && (match = /^\/api\/v1\/policy\/([1-9][0-9]{0,15})$/.exec(url))) {
      const body = await one(POLICY, [Number(match[1]), who.org, who.sub]);
      return body ? send(res, 200, body) : send(res, 404, '{"code":"NOT_FOUND"}');
    }
    if (req.method === 'GET' && (match = /^\/api\/v1\/organization\/([0-9a-f-]{36})$/.exec(url))) {
      const body = await one(ORGANIZATION, [match[1], who.org, who.sub]);
      return body ? send(res, 200, body) : send(res, 404, '{"code":"NOT_FOUND"}');
    }
    if (
      req.method === 'GET' &&
      (match = /^\/api\/v1\/policy\?organizationId=([0-9a-f-]{36})&includeDescendants=true&limit=20$/.exec(url))
    ) {
      const body = await one(SUBTREE_PAGE, [match[1], who.org, who.sub]);
      return body ? send(res, 200, body) : send(res, 404, '{"code":"NOT_FOUND"}');
    }
    if (req.method === 'POST' && url === '/graphql') {
      const { variables } = await readJson(req);
      const body = await one(POLICY, [variables.number, who.org, who.sub]);
      return send(res, 200, `{"data":{"policy":${body ?? 'null'}}}`);
    }
    if (req.method === 'POST' && url === '/api/v1/policy') {
      const input = await readJson(req);
      for (const field of ['ownerFirstname', 'ownerLastname', 'petName', 'coverageSlug', 'organizationId']) {
        if (typeof input[field] !== 'string' || input[field].trim() === '') return send(res, 400, '{"code":"BAD_USER_INPUT"}');
      }
      if (!isCalendarDate(input.effectiveDate) || !isCalendarDate(input.expirationDate) || input.expirationDate <= input.effectiveDate) {
        return send(res, 400, '{"code":"BAD_USER_INPUT"}');
      }
      const monthly = await pool.query('select monthly_premium from coverage_plan where slug = $1', [input.coverageSlug]);
      if (monthly.rows.length === 0) return send(res, 400, '{"code":"BAD_USER_INPUT"}');
      const schedule = premiumSchedule({
        effectiveDate: input.effectiveDate,
        expirationDate: input.expirationDate,
        monthlyPremium: monthly.rows[0].monthly_premium,
        currency: 'USD',
      }).map((charge, sequence) => ({ sequence, start: charge.periodStart, finish: charge.periodEnd, amount: charge.amount }));
      const body = await one(CREATE_POLICY, [
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
      return body ? send(res, 200, body) : send(res, 404, '{"code":"NOT_FOUND"}');
    }
    send(res, 404, '{"code":"NOT_FOUND"}');
  } catch {
    send(res, 500, '{"code":"INTERNAL_SERVER_ERROR"}');
  }
}
// `handle` answers every error itself, so its promise has nothing left to reject.
const server = createServer((req, res) => void handle(req, res));
const workers = Number(process.env.BASELINE_WORKERS ?? 1);
if (workers > 1 && cluster.isPrimary) {
  for (let index = 0; index < workers; index++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  server.listen(Number(process.env.PORT ?? 4001), '127.0.0.1', () => console.log('baseline listening'));
  process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
}
