import { Migration } from '@mikro-orm/migrations';

/**
 * Subtree listing (spec section 10): `Organization.policies(includeDescendants: true)` pages
 * the policies of an organization and all its descendants in creation order. Walking the
 * subtree's organizations and merging their policies costs as much as the subtree is big, so
 * each policy is listed under every organization on its path: `policy_ancestor` holds one row
 * per (ancestor, policy), at most depth + 1 rows per policy, and a page is one range of its
 * primary key (`ancestor_id = $1 and policy_seq > $after order by policy_seq limit n`).
 *
 * The rows are derived in the database, as organization.path is: a row trigger adds them for
 * every inserted policy (one primary-key lookup of its organization; a statement trigger over
 * the transition table was tried and planned a bulk insert of 100,000 policies as a nested
 * loop over the unanalysed transition table), and a policy cannot move to another
 * organization, just as an organization cannot change its parent.
 */
export class Migration20261123020000_policy_ancestry extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create unique index policy_seq_unique on policy (seq);

      create table policy_ancestor (
        ancestor_id uuid not null,
        policy_seq bigint not null,
        primary key (ancestor_id, policy_seq)
      );

      create function policy_add_ancestry() returns trigger language plpgsql as $$
      begin
        insert into policy_ancestor (ancestor_id, policy_seq)
        select unnest(o.path), new.seq from organization o where o.id = new.organization_id;
        return null;
      end $$;
      create trigger policy_ancestry after insert on policy
        for each row execute function policy_add_ancestry();

      create function policy_remove_ancestry() returns trigger language plpgsql as $$
      begin
        delete from policy_ancestor a using removed r where a.policy_seq = r.seq;
        return null;
      end $$;
      create trigger policy_ancestry_removed after delete on policy
        referencing old table as removed for each statement execute function policy_remove_ancestry();

      create function policy_refuse_move() returns trigger language plpgsql as $$
      begin
        raise exception 'a policy''s organization cannot change';
      end $$;
      create trigger policy_stays_in_its_organization before update of organization_id on policy
        for each row when (new.organization_id is distinct from old.organization_id) execute function policy_refuse_move();

      insert into policy_ancestor (ancestor_id, policy_seq)
      select ancestor, p.seq from policy p
        join organization o on o.id = p.organization_id
        cross join unnest(o.path) as ancestor;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger policy_stays_in_its_organization on policy;
      drop function policy_refuse_move();
      drop trigger policy_ancestry_removed on policy;
      drop function policy_remove_ancestry();
      drop trigger policy_ancestry on policy;
      drop function policy_add_ancestry();
      drop table policy_ancestor;
      drop index policy_seq_unique;
    `);
  }
}
