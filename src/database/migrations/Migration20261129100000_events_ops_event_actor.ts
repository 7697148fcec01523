import { Migration } from '@mikro-orm/migrations';

/**
 * Events carry their actor (contract section 18, issue 25 item 6): the `sub` of the caller whose
 * request made the event, stored with it when it is written (`event.actor_sub`), not derived
 * later from the object (an organization's creator is not who changed it).
 *
 * Events written before this column existed get the actor the database still knows, each from the
 * row its request wrote in the same transaction (so at the same `now()`):
 * - `organization.created`: the organization's `owner_sub` (its creator);
 * - `policy.*` (created, changed, cancelled, reinstated, renewed): the `created_by_sub` of the
 *   policy transaction written with the event (`created_at` equal to the event's: one
 *   transaction, one `now()`), else, for a create or a renewal, the policy's `created_by_sub`;
 * - `quote.created`: the quote's `created_by_sub`;
 * - `organization.updated`: unknown (nothing recorded who changed an organization), so null,
 *   and the event answers `actor: null`. So does any event whose object is gone.
 */
export class Migration20261129100000_events_ops_event_actor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table event add column actor_sub text;
      with object as (
        select e.id as event_id, case when e.data->'object'->>'id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
          then (e.data->'object'->>'id')::uuid end as id
        from event e
      )
      update event e set actor_sub = case
        when e.type = 'organization.created' then (select o.owner_sub from organization o where o.id = e.organization_id)
        when e.type like 'policy.%' then coalesce(
          (select t.created_by_sub from policy_transaction t
            where t.policy_id = object.id and t.created_at = e.created_at order by t.seq limit 1),
          case when e.type in ('policy.created', 'policy.renewed')
            then (select p.created_by_sub from policy p where p.id = object.id) end)
        when e.type = 'quote.created' then (select q.created_by_sub from quote q where q.id = object.id)
      end
      from object where object.event_id = e.id;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('alter table event drop column actor_sub;');
  }
}
