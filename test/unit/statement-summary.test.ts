import { describe, expect, it } from 'vitest';
import { summarizeStatement } from '../../src/database/statement-summary.js';
import { accessPredicate } from '../../src/auth/access-rule.js';
import { ACCESSIBLE_EVENTS_PAGE, DELIVERIES_BY_EVENT } from '../../src/events/event.reads.js';
import { EVENT_INSERT } from '../../src/outbox/record-event.js';

/** A statement's operation and main table, as its span is named (OpenTelemetry's database conventions). */
describe('summarizeStatement', () => {
  it.each([
    ['select "p0".* from "policy" as "p0" where "p0"."number" = $1 limit $2', 'SELECT', 'policy'],
    ['SELECT o.id FROM organization o WHERE o.id = ? and o.owner_sub = ?', 'SELECT', 'organization'],
    ['insert into "organization" ("id", "name") values (\'a\', \'it\'\'s\')', 'INSERT', 'organization'],
    [`${EVENT_INSERT} values (?, ?, ?, ?::jsonb, ?, ?)`, 'INSERT', 'event'],
    ["update webhook_delivery set status = 'failed', last_error = $2 where id = $1 and status = 'pending'", 'UPDATE', 'webhook_delivery'],
    ['delete from only idempotency_key where expires_at < now()', 'DELETE', 'idempotency_key'],
    ['select * from pgboss.job where name = $1', 'SELECT', 'pgboss.job'],
    ['  -- a comment first\n /* and another */ select 1 from "Quoted Table"', 'SELECT', 'Quoted Table'],
    // The select list's subqueries are not the statement's table: the outer FROM is.
    [
      'select p.id, (select json_agg(c) from charge c where c.policy_id = p.id) as charges from policy p join organization o on o.id = p.organization_id',
      'SELECT',
      'policy',
    ],
    ['select count(*)::int as count, extract(epoch from now()) from webhook_delivery where status = $1', 'SELECT', 'webhook_delivery'],
    // A subquery as the FROM item counts with its own table; a function is not a table.
    [DELIVERIES_BY_EVENT('true'), 'SELECT', 'webhook_delivery'],
    ['select x from unnest($1::uuid[]) as x join policy p on p.id = x', 'SELECT', 'policy'],
    // CTEs that write: named after the first write; a final write is named after itself.
    [
      'with made as (insert into policy (id) select id from json_populate_recordset(null::policy, ?::json) returning id, number), issued as (insert into policy_transaction (id) values (?)) select number::text as number from made',
      'INSERT',
      'policy',
    ],
    [
      'with made as (insert into policy_transaction (id) values (?)), charged as (insert into charge (id) values (?)) insert into event (id) values (?)',
      'INSERT',
      'event',
    ],
    [
      'with gone as (delete from event where created_at < now() - make_interval(secs => $1) returning seq), cleared as (delete from event_ancestor a using gone where a.event_seq = gone.seq) select count(*)::int as count from gone',
      'DELETE',
      'event',
    ],
    // Read-only CTEs: the final statement's first table, through a CTE's name to its table.
    [
      'with recursive up (id) as (select id from organization where id = $1 union all select o.parent_id from organization o join up on o.id = up.id) select * from up',
      'SELECT',
      'organization',
    ],
    [ACCESSIBLE_EVENTS_PAGE(accessPredicate('parent', { sub: 'a', org: null }).sql), 'SELECT', 'event_ancestor'],
  ])('%s', (sql, operation, collection) => {
    expect(summarizeStatement(sql)).toEqual({ operation, collection });
  });

  it.each([
    ['begin', { operation: 'BEGIN' }],
    ['commit', { operation: 'COMMIT' }],
    ["select pg_advisory_xact_lock(hashtext('org-policy:create-queue'))", { operation: 'SELECT' }],
    ['set local statement_timeout = 1000', { operation: 'SET' }],
    ['', {}],
    ['$1', {}],
    ['with broken as select', {}],
  ])('%s: what it can tell, no guess', (sql, summary) => {
    expect(summarizeStatement(sql)).toEqual(summary);
  });

  it('is not fooled by keywords inside literals, quoted names or dollar quotes', () => {
    expect(summarizeStatement("select 'from policy' as x from organization")).toEqual({ operation: 'SELECT', collection: 'organization' });
    expect(summarizeStatement('select "from" from "select"')).toEqual({ operation: 'SELECT', collection: 'select' });
    expect(summarizeStatement('select $$ from policy $$ from quote')).toEqual({ operation: 'SELECT', collection: 'quote' });
  });
});
