import { Migration } from '@mikro-orm/migrations';

/**
 * Bounded trees (contract section 12): an organization's depth is `cardinality(path)` (a root
 * is 1) and an insert deeper than `org_policy.organization_max_depth` (the connection's
 * setting, from ORGANIZATION_MAX_DEPTH; 32 on a connection that sets none) fails with SQLSTATE
 * TD001. Every ancestry row an organization, policy or event costs (`path`, `policy_ancestor`,
 * `event_ancestor`) is one per level, so the cap bounds them all.
 *
 * A trigger of its own, not a new body for organization_set_ancestry: triggers of one event
 * fire in name order, so `organization_depth_limit` runs after `organization_ancestry` has
 * filled `path` from the parent row. A parent's path never changes, so nothing can race it.
 * Existing rows deeper than the cap are left as they are; only new rows are checked.
 */
export class Migration20261126120000_organization_depth extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function organization_refuse_too_deep() returns trigger language plpgsql as $$
      declare
        max_depth int := coalesce(nullif(current_setting('org_policy.organization_max_depth', true), '')::int, 32);
      begin
        if cardinality(new.path) > max_depth then
          raise exception using errcode = 'TD001', message = format('organization max depth %s exceeded', max_depth);
        end if;
        return new;
      end $$;
      create trigger organization_depth_limit before insert on organization
        for each row execute function organization_refuse_too_deep();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger organization_depth_limit on organization;
      drop function organization_refuse_too_deep();
    `);
  }
}
