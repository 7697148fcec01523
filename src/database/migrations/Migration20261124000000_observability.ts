import { Migration } from '@mikro-orm/migrations';

/**
 * Observability (spec section 13):
 * - `event.trace_parent`: the W3C `traceparent` of the request that wrote the event (null when
 *   tracing is off), so its webhook deliveries continue that trace.
 * - an index of the deliveries still pending, which `/metrics` counts as the queue's depth at
 *   every scrape: the count reads the pending rows only, however many were delivered.
 */
export class Migration20261124000000_observability extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table event add column trace_parent text;
      create index webhook_delivery_pending_index on webhook_delivery (next_attempt_at) where status = 'pending';
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index webhook_delivery_pending_index;
      alter table event drop column trace_parent;
    `);
  }
}
