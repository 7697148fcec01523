import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 14, "Charges are a ledger": every change to a policy is a
 * `policy_transaction` (issuance, change, cancellation, reinstatement, renewal), and each charge
 * belongs to the transaction that wrote it. A charge is a `premium`, a `credit` (negative), a
 * `fee`, or a `reversal` of another charge of the same policy (`reverses`, the opposite amount).
 *
 * Charges and transactions are append-only, enforced here and not only in code (SQLSTATE
 * LG001): an UPDATE, DELETE or TRUNCATE of either fails whoever sends it. Nothing in the service
 * updates or deletes them; a policy with charges cannot be deleted either (the cascade would
 * delete its charges). Existing policies get one `issuance` transaction, effective on their
 * `effective_date`, made by their creator at their creation time, which owns all their charges.
 */
export class Migration20261127100000_policy_ledger extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table policy_transaction (
        id uuid primary key,
        seq bigint generated always as identity constraint policy_transaction_seq_unique unique,
        policy_id uuid not null references policy (id),
        type text not null check (type in ('issuance', 'change', 'cancellation', 'reinstatement', 'renewal')),
        effective_date date not null,
        created_at timestamptz not null default now(),
        created_by_sub text not null,
        changes jsonb not null default '{}' check (jsonb_typeof(changes) = 'object')
      );
      -- A policy's transactions, oldest first (the transactions list pages on it).
      create index policy_transaction_policy_seq_index on policy_transaction (policy_id, seq);

      insert into policy_transaction (id, policy_id, type, effective_date, created_at, created_by_sub)
        select gen_random_uuid(), p.id, 'issuance', p.effective_date, p.created_at, p.created_by_sub from policy p order by p.seq;

      alter table charge
        add column transaction_id uuid references policy_transaction (id),
        add column reverses uuid references charge (id);
      update charge c set transaction_id = t.id from policy_transaction t where t.policy_id = c.policy_id;
      alter table charge alter column transaction_id set not null;
      create index charge_transaction_index on charge (transaction_id);
      create index charge_reverses_index on charge (reverses) where reverses is not null;

      alter table charge drop constraint charge_type_check;
      alter table charge drop constraint charge_amount_check;
      alter table charge
        add constraint charge_type_check check (type in ('premium', 'credit', 'fee', 'reversal')),
        add constraint charge_amount_sign check (case type when 'credit' then amount <= 0 when 'reversal' then true else amount >= 0 end),
        add constraint charge_reversal_names_its_charge check ((type = 'reversal') = (reverses is not null));

      create function ledger_refuse_change() returns trigger language plpgsql as $$
      begin
        raise exception using errcode = 'LG001',
          message = format('%s is a ledger: its rows are never updated or deleted (%s refused)', tg_table_name, lower(tg_op));
      end $$;
      create trigger charge_append_only before update or delete on charge
        for each row execute function ledger_refuse_change();
      create trigger charge_no_truncate before truncate on charge
        for each statement execute function ledger_refuse_change();
      create trigger policy_transaction_append_only before update or delete on policy_transaction
        for each row execute function ledger_refuse_change();
      create trigger policy_transaction_no_truncate before truncate on policy_transaction
        for each statement execute function ledger_refuse_change();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger policy_transaction_no_truncate on policy_transaction;
      drop trigger policy_transaction_append_only on policy_transaction;
      drop trigger charge_no_truncate on charge;
      drop trigger charge_append_only on charge;
      drop function ledger_refuse_change();
      alter table charge
        drop constraint charge_reversal_names_its_charge,
        drop constraint charge_amount_sign,
        drop constraint charge_type_check;
      alter table charge
        add constraint charge_type_check check (type in ('premium')),
        add constraint charge_amount_check check (amount >= 0);
      alter table charge drop column reverses, drop column transaction_id;
      drop table policy_transaction;
    `);
  }
}
