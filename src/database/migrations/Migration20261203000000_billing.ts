import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 39, contract section 19: payments and refunds, and what billing reads from the state.
 * - `policy_payment`: the money the integrator recorded, a ledger like the charges (append-only,
 *   LG001): a payment or a refund, `reference` unique per policy (the provider's id: a retried
 *   payment is one row), `seq` its order for the list.
 * - `policy_state` gains what the billing summary needs, so a read computes it from the row it
 *   already probes: `dues` (what the charges due on each day sum to, `[[date, cents], ...]`,
 *   days summing to 0 left out), `paid` (payments minus refunds) and `unpaid_from` (the oldest
 *   unpaid due date, which does not depend on today: what the billing sweep checks first). A payment or a
 *   refund writes a state row too (the policy's version +1, contract section 14): its
 *   `transaction_id` is null and `payment_id` names it.
 * - `policy_billing_notice`: whether the sweep last saw the policy past due, so `policy.past_due`
 *   is recorded once each time it turns so. The one table here that is updated, and it holds no
 *   money.
 * Existing rows are backfilled from the charges their transaction left; no payment exists yet.
 */
export class Migration20261203000000_billing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table policy_payment (
        id uuid primary key,
        policy_id uuid not null references policy (id),
        seq bigint generated always as identity constraint policy_payment_seq_unique unique,
        type text not null constraint policy_payment_type_check check (type in ('payment', 'refund')),
        amount integer not null constraint policy_payment_amount_check check (amount between 1 and 100000000),
        reference text not null,
        date date not null,
        created_at timestamptz not null default now(),
        created_by_sub text not null,
        constraint policy_payment_reference_unique unique (policy_id, reference)
      );
      create index policy_payment_policy_seq_index on policy_payment (policy_id, seq);
      create trigger policy_payment_append_only before update or delete on policy_payment
        for each row execute function ledger_refuse_change();
      create trigger policy_payment_no_truncate before truncate on policy_payment
        for each statement execute function ledger_refuse_change();

      alter table policy_state
        alter column transaction_id drop not null,
        add column payment_id uuid constraint policy_state_payment_unique unique references policy_payment (id),
        add column dues jsonb not null default '[]' check (jsonb_typeof(dues) = 'array'),
        add column paid bigint not null default 0,
        add column unpaid_from date,
        add constraint policy_state_one_cause check ((transaction_id is null) <> (payment_id is null));

      -- Backfill (no trigger refuses this migration's own update: it is off for its length).
      alter table policy_state disable trigger policy_state_append_only;
      update policy_state s set dues = d.dues, unpaid_from = d.unpaid_from
      from (
        select s.policy_id, s.version,
          coalesce((select jsonb_agg(jsonb_build_array(day.due_date, day.amount) order by day.due_date)
            from (select c.due_date, sum(c.amount)::bigint as amount from charge c join policy_transaction t on t.id = c.transaction_id
                  where c.policy_id = s.policy_id and t.seq <= own.seq group by c.due_date having sum(c.amount) <> 0) day), '[]') as dues,
          (select min(day.due_date) from (
             select c.due_date, sum(sum(c.amount)) over (order by c.due_date) as running
             from charge c join policy_transaction t on t.id = c.transaction_id
             where c.policy_id = s.policy_id and t.seq <= own.seq group by c.due_date) day
           where day.running > 0) as unpaid_from
        from policy_state s join policy_transaction own on own.id = s.transaction_id
      ) d
      where d.policy_id = s.policy_id and d.version = s.version;
      alter table policy_state enable trigger policy_state_append_only;

      create table policy_billing_notice (
        policy_id uuid primary key references policy (id),
        past_due boolean not null,
        changed_at timestamptz not null default now()
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop table policy_billing_notice;
      alter table policy_state disable trigger policy_state_no_truncate;
      alter table policy_state disable trigger policy_state_append_only;
      delete from policy_state where payment_id is not null;
      alter table policy_state enable trigger policy_state_append_only;
      alter table policy_state enable trigger policy_state_no_truncate;
      alter table policy_state
        drop constraint policy_state_one_cause,
        drop column unpaid_from, drop column paid, drop column dues, drop column payment_id,
        alter column transaction_id set not null;
      drop table policy_payment;
    `);
  }
}
