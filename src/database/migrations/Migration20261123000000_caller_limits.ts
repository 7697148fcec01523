import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 12, in the database:
 * - `rate_limit`: the per-`sub` create counts shared by every instance (rate-limiter-flexible's
 *   PostgreSQL store: key, points, expire in epoch milliseconds).
 * - `tree_usage`: organizations and policies per root organization tree, counted by statement
 *   triggers in the transaction of each insert. When the connection sets a quota
 *   (`org_policy.quota_*_per_tree`, from QUOTA_* variables), an insert that goes over it fails
 *   with SQLSTATE QE001 and its whole transaction rolls back: the count is exact across
 *   instances because concurrent inserts into one tree queue on its row.
 * - `idempotency_key`: claims with recovery points (src/idempotency/idempotency.ts). Rows kept
 *   so far are deleted: their fingerprints were unkeyed hashes of bodies that could hold a cvc.
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

      create function count_tree_organizations() returns trigger language plpgsql as $$
      declare
        quota bigint := nullif(current_setting('org_policy.quota_organizations_per_tree', true), '')::bigint;
      begin
        insert into tree_usage as u (root_id, organizations)
          select path[1], count(*) from inserted group by path[1]
          on conflict (root_id) do update set organizations = u.organizations + excluded.organizations;
        if quota is not null and exists (
          select 1 from tree_usage u where u.root_id in (select path[1] from inserted) and u.organizations > quota
        ) then
          raise exception using errcode = 'QE001', message = format('organizations quota %s exceeded', quota);
        end if;
        return null;
      end $$;
      create trigger organization_tree_usage after insert on organization
        referencing new table as inserted for each statement execute function count_tree_organizations();

      create function count_tree_policies() returns trigger language plpgsql as $$
      declare
        quota bigint := nullif(current_setting('org_policy.quota_policies_per_tree', true), '')::bigint;
      begin
        update tree_usage u set policies = u.policies + c.n
          from (select o.path[1] as root, count(*) as n from inserted p join organization o on o.id = p.organization_id group by o.path[1]) c
          where u.root_id = c.root;
        if quota is not null and exists (
          select 1 from tree_usage u join organization o on o.path[1] = u.root_id
          where o.id in (select organization_id from inserted) and u.policies > quota
        ) then
          raise exception using errcode = 'QE001', message = format('policies quota %s exceeded', quota);
        end if;
        return null;
      end $$;
      create trigger policy_tree_usage after insert on policy
        referencing new table as inserted for each statement execute function count_tree_policies();

      delete from idempotency_key;
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
      drop function count_tree_policies();
      drop trigger organization_tree_usage on organization;
      drop function count_tree_organizations();
      drop table tree_usage;
      drop table rate_limit;
    `);
  }
}
