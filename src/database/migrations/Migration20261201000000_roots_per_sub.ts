import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 12, "Webhooks are fair between tenants": root organizations per `sub`.
 * A tenant is the `sub` that created a root (its `owner_sub`, which never changes), with every
 * tree it created; webhook delivery shares its capacity by tenant (webhooks/delivery-fairness.ts),
 * so a tenant's trees are bounded too. `sub_usage` counts each `sub`'s roots, backfilled from the
 * roots that exist (each one's `owner_sub` is its creator). The count rises at the commit of a
 * root's insert (a deferred trigger, as `tree_usage`'s: concurrent creates of one `sub` queue on
 * its row only while they commit, so the count is exact across instances). With the connection
 * setting `org_policy.quota_roots_per_sub` (ORGANIZATION_ROOTS_PER_SUB), an insert over it fails
 * with SQLSTATE QE001 and its transaction rolls back. Organizations are never deleted, so the
 * count never falls.
 */
export class Migration20261201000000_roots_per_sub extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table sub_usage (
        sub text primary key,
        roots bigint not null default 0
      );
      insert into sub_usage (sub, roots) select owner_sub, count(*) from organization where parent_id is null group by owner_sub;

      create function count_sub_roots() returns trigger language plpgsql as $$
      declare
        used bigint;
        quota bigint;
      begin
        insert into sub_usage as u (sub, roots) values (new.owner_sub, 1)
          on conflict (sub) do update set roots = u.roots + 1
          returning u.roots into used;
        quota := nullif(current_setting('org_policy.quota_roots_per_sub', true), '')::bigint;
        if quota is not null and used > quota then
          raise exception using errcode = 'QE001', message = format('root organizations quota %s exceeded', quota);
        end if;
        return null;
      end $$;
      create constraint trigger organization_sub_usage after insert on organization
        deferrable initially deferred for each row when (new.parent_id is null) execute function count_sub_roots();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger organization_sub_usage on organization;
      drop function count_sub_roots();
      drop table sub_usage;
    `);
  }
}
