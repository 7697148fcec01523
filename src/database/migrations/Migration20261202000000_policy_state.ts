import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 38: the policy's state, stored when it is written (formancehq/ledger's post-commit
 * volumes) instead of derived again by every read. One row per transaction, in the order they
 * were posted (`version`: 1 for the first, +1 each), holding what the policy is after it:
 * - `fields`: the changeable fields (policy-change.ts: CHANGEABLE_FIELDS and `coverage`) in effect
 *   from `valid_from` on. The first transaction's row holds from the start (`-infinity`); a later
 *   one's from its effective date. Effective dates never decrease (contract section 14), so the
 *   fields in effect on a day are those of the latest row whose `valid_from` is on or before it;
 * - `cancellation`: the cancellation in force after it, also while it lies in the future, as
 *   reads show it (`{ effectiveDate, reason, method, credited, fee, createdAt }`), or null;
 *   `cancelled_from` its date, which the status filter compares with today.
 * Status is still judged against today when read: a change or a cancellation may be future-dated.
 *
 * Append-only like the ledger it projects (LG001). Existing policies are backfilled here from
 * their transactions and charges, with the rules the reads applied until now (frozen in this
 * file: the service's own rendering is src/policies/ledger/).
 */
export class Migration20261202000000_policy_state extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table policy_state (
        policy_id uuid not null references policy (id),
        version integer not null check (version >= 1),
        transaction_id uuid not null constraint policy_state_transaction_unique unique references policy_transaction (id),
        valid_from date not null,
        fields jsonb not null check (jsonb_typeof(fields) = 'object'),
        cancellation jsonb check (jsonb_typeof(cancellation) = 'object'),
        cancelled_from date,
        constraint policy_state_pkey primary key (policy_id, version),
        constraint policy_state_cancelled_from check ((cancellation is null) = (cancelled_from is null))
      );
      create trigger policy_state_append_only before update or delete on policy_state
        for each row execute function ledger_refuse_change();
      create trigger policy_state_no_truncate before truncate on policy_state
        for each statement execute function ledger_refuse_change();

      insert into policy_state (policy_id, version, transaction_id, valid_from, fields, cancellation, cancelled_from)
      select t.policy_id, t.version, t.id,
        case when t.version = 1 then '-infinity'::date else t.effective_date end,
        jsonb_build_object(
          'petName', p.pet_name, 'petDOB', p.pet_dob, 'ownerFirstname', p.owner_firstname,
          'ownerLastname', p.owner_lastname, 'ownerDOB', p.owner_dob, 'coverageSlug', p.coverage_slug,
          'coverage', p.coverage
        ) || coalesce((
          select jsonb_object_agg(f.key, f.value -> 'to') from (
            select distinct on (e.key) e.key, e.value from policy_transaction c cross join lateral jsonb_each(c.changes) e
            where c.policy_id = t.policy_id and c.type = 'change' and c.seq <= t.seq
            order by e.key, c.seq desc) f), '{}'),
        k.cancellation, (k.cancellation ->> 'effectiveDate')::date
      from (select t.*, row_number() over (partition by t.policy_id order by t.seq)::int as version from policy_transaction t) t
      join policy p on p.id = t.policy_id
      cross join lateral (
        select (select jsonb_build_object(
            'effectiveDate', l.effective_date,
            'reason', l.changes #>> '{cancellation,to,reason}',
            'method', l.changes #>> '{cancellation,to,method}',
            'credited', (select coalesce(sum(c.amount), 0)::int from charge c where c.transaction_id = l.id and c.type = 'credit'),
            'fee', (select coalesce(sum(c.amount), 0)::int from charge c where c.transaction_id = l.id and c.type = 'fee'),
            'createdAt', to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
          from (select l.* from policy_transaction l
            where l.policy_id = t.policy_id and l.type in ('cancellation', 'reinstatement') and l.seq <= t.seq
            order by l.seq desc limit 1) l
          where l.type = 'cancellation') as cancellation
      ) k
      order by t.seq;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table policy_state;`);
  }
}
