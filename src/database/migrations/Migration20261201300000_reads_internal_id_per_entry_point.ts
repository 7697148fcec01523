import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 37, L4 (contract section 18): the `internalID` lookup stays in the caller's trees. It
 * walked `policy_internal_id_index` (internal_id, seq) over every tenant's policies with that key
 * and checked the access rule on each, so its time told whether another tenant used the key
 * (18-106 ms against 2-4 ms). Now each policy's key is listed under every organization on its
 * path, beside its ancestry: `policy_ancestor.internal_id`, copied by the ancestry trigger, and
 * the lookup reads one range of (ancestor_id, internal_id, policy_seq) per entry point of the
 * caller (policy.reads.ts, POLICIES_BY_INTERNAL_ID). Only policies with a key have an index
 * entry. A policy's `internal_id` is fixed at issue (policy-change.ts, FIXED_AT_ISSUE): the
 * database refuses to change it, as it refuses to move a policy, so the copies stay true.
 */
export class Migration20261201300000_reads_internal_id_per_entry_point extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table policy_ancestor add column internal_id text;
      update policy_ancestor a set internal_id = p.internal_id from policy p where p.seq = a.policy_seq and p.internal_id is not null;
      create index policy_ancestor_internal_id_index on policy_ancestor (ancestor_id, internal_id, policy_seq) where internal_id is not null;
      drop index policy_internal_id_index;

      create or replace function policy_add_ancestry() returns trigger language plpgsql as $$
      begin
        insert into policy_ancestor (ancestor_id, policy_seq, internal_id)
        select unnest(o.path), new.seq, new.internal_id from organization o where o.id = new.organization_id;
        return null;
      end $$;

      create function policy_refuse_internal_id_change() returns trigger language plpgsql as $$
      begin
        raise exception 'a policy''s internal_id cannot change';
      end $$;
      create trigger policy_internal_id_fixed before update of internal_id on policy
        for each row when (new.internal_id is distinct from old.internal_id) execute function policy_refuse_internal_id_change();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger policy_internal_id_fixed on policy;
      drop function policy_refuse_internal_id_change();
      create or replace function policy_add_ancestry() returns trigger language plpgsql as $$
      begin
        insert into policy_ancestor (ancestor_id, policy_seq)
        select unnest(o.path), new.seq from organization o where o.id = new.organization_id;
        return null;
      end $$;
      create index policy_internal_id_index on policy (internal_id, seq) where internal_id is not null;
      drop index policy_ancestor_internal_id_index;
      alter table policy_ancestor drop column internal_id;
    `);
  }
}
