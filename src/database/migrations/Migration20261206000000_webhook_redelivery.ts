import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 22: test events, redeliveries and recoveries.
 * - An event may now have several deliveries to one endpoint (a redelivery is a new one, with its
 *   own attempts and attempt log): the unique (event, endpoint) pair becomes a plain index, which
 *   the event's deliveries and a recovery's "has it one delivered or pending?" still read by.
 * - `requested`: a delivery a caller asked for (a test event, a redelivery). Its first attempt is
 *   made at once, not put off with its endpoint's back-off: it is how an integrator checks a
 *   receiver they just fixed, and its success clears the back-off (src/webhooks/delivery-record.ts).
 * - A `webhook.test` event goes to one endpoint only, made by its request, and stays out of the
 *   event lists: the fan-out trigger neither lists it under its organizations (`event_ancestor`,
 *   which the lists read) nor makes it a delivery to any other endpoint.
 */
export class Migration20261206000000_webhook_redelivery extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_delivery drop constraint webhook_delivery_event_id_endpoint_id_key;
      create index webhook_delivery_event_endpoint_index on webhook_delivery (event_id, endpoint_id);
      alter table webhook_delivery add column requested boolean not null default false;

      create or replace function event_fan_out() returns trigger language plpgsql as $$
      declare
        organization_path uuid[];
      begin
        if new.type = 'webhook.test' then
          return null;
        end if;
        select path into organization_path from organization where id = new.organization_id;
        insert into event_ancestor (ancestor_id, event_seq) select unnest(organization_path), new.seq;
        insert into webhook_delivery (event_id, endpoint_id)
        select new.id, w.id from webhook_endpoint w
        where w.organization_id = any (organization_path) and w.deleted_at is null
          and (w.events is null or new.type = any (w.events));
        return null;
      end $$;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      create or replace function event_fan_out() returns trigger language plpgsql as $$
      declare
        organization_path uuid[];
      begin
        select path into organization_path from organization where id = new.organization_id;
        insert into event_ancestor (ancestor_id, event_seq) select unnest(organization_path), new.seq;
        insert into webhook_delivery (event_id, endpoint_id)
        select new.id, w.id from webhook_endpoint w
        where w.organization_id = any (organization_path) and w.deleted_at is null
          and (w.events is null or new.type = any (w.events));
        return null;
      end $$;
      delete from webhook_delivery d using webhook_delivery first
        where first.event_id = d.event_id and first.endpoint_id = d.endpoint_id and first.created_at < d.created_at;
      delete from event where type = 'webhook.test';
      alter table webhook_delivery drop column requested;
      drop index webhook_delivery_event_endpoint_index;
      alter table webhook_delivery add constraint webhook_delivery_event_id_endpoint_id_key unique (event_id, endpoint_id);
    `);
  }
}
