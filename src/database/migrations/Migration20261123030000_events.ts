import { Migration } from '@mikro-orm/migrations';

/**
 * Events and webhooks (spec section 11), as a transactional outbox:
 * - `event`: written by a create in its own transaction, so an event exists exactly when its
 *   change committed. `event_ancestor` lists each event under every organization on its path
 *   (as `policy_ancestor` does for policies), so a subtree's events page by one index range.
 * - `webhook_endpoint`: a URL registered on an organization; it receives the events of that
 *   organization's whole subtree. The signing secret is stored sealed by the field cipher.
 * - `webhook_delivery`: one row per (event, endpoint), made by a trigger on `event` in the same
 *   transaction, so no event can miss an endpoint that existed when it was written. The job
 *   queue (pg-boss) carries the attempts; this row keeps their state and is what the API shows.
 */
export class Migration20261123030000_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table event (
        id uuid primary key,
        seq bigint generated always as identity,
        type text not null,
        organization_id uuid not null references organization (id),
        created_at timestamptz not null default now(),
        data jsonb not null
      );
      create unique index event_seq_unique on event (seq);
      create index event_created_at_index on event (created_at);

      create table event_ancestor (
        ancestor_id uuid not null,
        event_seq bigint not null,
        primary key (ancestor_id, event_seq)
      );
      -- For the retention purge, which deletes by event.
      create index event_ancestor_event_index on event_ancestor (event_seq);

      create table webhook_endpoint (
        id uuid primary key,
        seq bigint generated always as identity,
        organization_id uuid not null references organization (id),
        url text not null,
        events text[],
        description text,
        secret_ciphertext text not null,
        secret_key_id text not null,
        created_by_sub text not null,
        created_at timestamptz not null default now(),
        deleted_at timestamptz
      );
      create index webhook_endpoint_organization_index on webhook_endpoint (organization_id, seq) where deleted_at is null;

      create table webhook_delivery (
        id uuid primary key default gen_random_uuid(),
        event_id uuid not null references event (id) on delete cascade,
        endpoint_id uuid not null references webhook_endpoint (id) on delete cascade,
        status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
        attempts int not null default 0,
        last_status int,
        last_error text,
        last_attempt_at timestamptz,
        next_attempt_at timestamptz not null default now(),
        delivered_at timestamptz,
        enqueued boolean not null default false,
        created_at timestamptz not null default now(),
        unique (event_id, endpoint_id)
      );
      create index webhook_delivery_to_enqueue_index on webhook_delivery (created_at) where not enqueued;

      -- Each event under every organization on its path, and a delivery for every live endpoint
      -- on that path whose filter admits its type: in the transaction that writes the event.
      create function event_fan_out() returns trigger language plpgsql as $$
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
      create trigger event_fan_out after insert on event for each row execute function event_fan_out();
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop trigger event_fan_out on event;
      drop function event_fan_out();
      drop table webhook_delivery;
      drop table webhook_endpoint;
      drop table event_ancestor;
      drop table event;
    `);
  }
}
