import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 22, the attempt log of a webhook endpoint (docs/decisions.md, "The webhook
 * attempt log"):
 * - `webhook_attempt`: one row per POST a delivery made, inserted with the delivery's state after
 *   it, in one transaction (src/webhooks/delivery-record.ts). `seq` orders an endpoint's rows as
 *   they were recorded, the position its newest-first pages continue from.
 * - `endpoint_id` and `event_id` are the delivery's, copied so that a page of one endpoint's
 *   attempts reads one index range, without a join per row.
 * - Kept as long as events: a row goes with its delivery (on delete cascade), which goes with its
 *   event at retention (src/webhooks/event-retention.ts) or with its endpoint. The index on
 *   `delivery_id` is the cascade's: without it every deleted delivery would scan the log.
 * - `error` one of the classes of src/webhooks/attempt-log.ts (ATTEMPT_ERRORS), or null;
 *   `response_body` at most 4,096 bytes of UTF-8 (null when no answer came).
 */
export class Migration20261205110000_webhook_attempts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_attempt (
        id uuid primary key default gen_random_uuid(),
        seq bigint generated always as identity,
        delivery_id uuid not null references webhook_delivery (id) on delete cascade,
        endpoint_id uuid not null,
        event_id uuid not null,
        attempt int not null check (attempt >= 1),
        started_at timestamptz not null,
        duration_ms int not null check (duration_ms >= 0),
        response_status int,
        error text check (error in ('timeout', 'connection_refused', 'connection_reset', 'dns', 'tls', 'refused_address')),
        response_body text check (octet_length(response_body) <= 4096)
      );
      -- An endpoint's attempts, newest first: one range of this index per page.
      create index webhook_attempt_endpoint_seq_index on webhook_attempt (endpoint_id, seq);
      -- The cascade from a deleted delivery (event retention).
      create index webhook_attempt_delivery_index on webhook_attempt (delivery_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table webhook_attempt;');
  }
}
