import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 12, "Webhooks are fair between trees": live webhook endpoints per root tree,
 * counted in `tree_usage` like organizations and policies. The count rises at the commit of an
 * endpoint's insert (a deferred trigger, so concurrent creates in one tree queue on its row only
 * while they commit) and falls when an endpoint is deleted. With the connection setting
 * `org_policy.quota_webhook_endpoints_per_tree` (WEBHOOK_ENDPOINTS_PER_TREE), an insert over it
 * fails with SQLSTATE QE001 and its transaction rolls back. A trigger of its own, so that the
 * organizations' and policies' trigger is left as it was.
 */
export class Migration20261126000000_webhook_endpoint_quota extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table tree_usage add column webhook_endpoints bigint not null default 0;
      update tree_usage u set webhook_endpoints = c.n
        from (select o.path[1] as root, count(*) as n from webhook_endpoint w join organization o on o.id = w.organization_id
              where w.deleted_at is null group by o.path[1]) c
        where u.root_id = c.root;

      create function count_tree_webhook_endpoints() returns trigger language plpgsql as $$
      declare
        used bigint;
        quota bigint;
      begin
        if tg_op = 'UPDATE' then
          update tree_usage u set webhook_endpoints = u.webhook_endpoints - 1
            from organization o where o.id = new.organization_id and u.root_id = o.path[1];
          return null;
        end if;
        update tree_usage u set webhook_endpoints = u.webhook_endpoints + 1
          from organization o where o.id = new.organization_id and u.root_id = o.path[1]
          returning u.webhook_endpoints into used;
        quota := nullif(current_setting('org_policy.quota_webhook_endpoints_per_tree', true), '')::bigint;
        if quota is not null and used > quota then
          raise exception using errcode = 'QE001', message = format('webhook endpoints quota %s exceeded', quota);
        end if;
        return null;
      end $$;
      create constraint trigger webhook_endpoint_tree_usage after insert on webhook_endpoint
        deferrable initially deferred for each row execute function count_tree_webhook_endpoints();
      create trigger webhook_endpoint_tree_usage_deleted after update of deleted_at on webhook_endpoint
        for each row when (old.deleted_at is null and new.deleted_at is not null) execute function count_tree_webhook_endpoints();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger webhook_endpoint_tree_usage_deleted on webhook_endpoint;
      drop trigger webhook_endpoint_tree_usage on webhook_endpoint;
      drop function count_tree_webhook_endpoints();
      alter table tree_usage drop column webhook_endpoints;
    `);
  }
}
