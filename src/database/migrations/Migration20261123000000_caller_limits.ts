import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 12, in the database:
 * - `rate_limit`: the per-`sub` create counts shared by every instance (rate-limiter-flexible's
 *   PostgreSQL store: key, points, expire in epoch milliseconds).
 * - `tree_usage`: organizations and policies per root organization tree, counted by triggers
 *   at the commit of each insert's transaction. When the connection sets a quota
 *   (`org_policy.quota_*_per_tree`, from QUOTA_* variables), an insert that goes over it fails
 *   with SQLSTATE QE001 and its whole transaction rolls back: the count is exact across
 *   instances because concurrent inserts into one tree queue on its row.
 * - `idempotency_key`: claims with recovery points (src/idempotency/idempotency.ts). The
 *   fingerprints kept so far were unkeyed hashes of bodies that could hold a cvc: they are
 *   erased, and their rows (answers kept for up to a day) are still replayed, for any body, so
 *   that a retry sent across this deploy does not create twice.
 */
export class Migration20261123000000_caller_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table rate_limit (
        key text primary key,
        points integer not null default 0,
        expire bigint
      );

      create table tree_usage (
        root_id uuid primary key references organization (id),
        organizations bigint not null default 0,
        policies bigint not null default 0
      );
      insert into tree_usage (root_id, organizations) select path[1], count(*) from organization group by path[1];
      update tree_usage u set policies = c.n
        from (select o.path[1] as root, count(*) as n from policy p join organization o on o.id = p.organization_id group by o.path[1]) c
        where u.root_id = c.root;

      -- Deferred to the commit: the tree's counter row is then locked only while the create
      -- commits, not for the rest of its transaction, so creates in one tree barely queue.
      create function count_tree_usage() returns trigger language plpgsql as $$
      declare
        used bigint;
        quota bigint;
      begin
        if tg_table_name = 'organization' then
          insert into tree_usage as u (root_id, organizations) values (new.path[1], 1)
            on conflict (root_id) do update set organizations = u.organizations + 1
            returning u.organizations into used;
          quota := nullif(current_setting('org_policy.quota_organizations_per_tree', true), '')::bigint;
        else
          update tree_usage u set policies = u.policies + 1
            from organization o where o.id = new.organization_id and u.root_id = o.path[1]
            returning u.policies into used;
          quota := nullif(current_setting('org_policy.quota_policies_per_tree', true), '')::bigint;
        end if;
        if quota is not null and used > quota then
          raise exception using errcode = 'QE001',
            message = format('%s quota %s exceeded', case tg_table_name when 'organization' then 'organizations' else 'policies' end, quota);
        end if;
        return null;
      end $$;
      create constraint trigger organization_tree_usage after insert on organization
        deferrable initially deferred for each row execute function count_tree_usage();
      create constraint trigger policy_tree_usage after insert on policy
        deferrable initially deferred for each row execute function count_tree_usage();

      update idempotency_key set fingerprint = '';
      alter table idempotency_key
        add column claim uuid,
        add column locked_until timestamptz,
        add column created jsonb,
        alter column status drop not null,
        alter column content_type drop not null,
        alter column body drop not null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      delete from idempotency_key where status is null;
      alter table idempotency_key drop column claim, drop column locked_until, drop column created,
        alter column status set not null, alter column content_type set not null, alter column body set not null;
      drop trigger policy_tree_usage on policy;
      drop trigger organization_tree_usage on organization;
      drop function count_tree_usage();
      drop table tree_usage;
      drop table rate_limit;
    `);
  }
}
