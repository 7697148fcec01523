import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 22, "`rateLimitPerSecond` (1-1,000, optional): deliveries to the endpoint
 * never exceed it", enforced at delivery (docs/decisions.md, "A webhook endpoint's rate limit"):
 * - `webhook_send`: the sends to an endpoint with a limit, each from its claim (just before the
 *   POST) to its finish (written with the attempt's outcome). A send occupies the endpoint until
 *   1 s after it finished, and a new one is claimed only while fewer than the limit occupy it, so
 *   the receiver never sees more than the limit in any second, however long each request took to
 *   reach it. In the database, so that every instance's claims count against the one limit.
 *   Rows are only written for endpoints with a limit; each claim deletes its endpoint's rows that
 *   no longer occupy it (the event retention sweeps what endpoints whose limit went left behind),
 *   so the table holds about the limit's worth of rows per such endpoint.
 * - `claimed_at` and `finished_at` are the database's clock at the claim and the finish
 *   (`clock_timestamp()`, not the transaction's start): every instance compares them with that one
 *   clock. The index serves the claim's read of its endpoint's rows.
 * - `webhook_endpoint.rate_paced_until`: when the next job refused by the limit may try again;
 *   each refusal moves it on by the time a place takes to free, so that waiting jobs come back
 *   one by one rather than all at once (src/webhooks/send-window.ts).
 */
export class Migration20261206100000_webhook_rate_limit extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_send (
        endpoint_id uuid not null references webhook_endpoint (id) on delete cascade,
        id bigint generated always as identity primary key,
        claimed_at timestamptz not null default clock_timestamp(),
        finished_at timestamptz
      );
      create index webhook_send_endpoint_index on webhook_send (endpoint_id, claimed_at);
      alter table webhook_endpoint add column rate_paced_until timestamptz;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table webhook_endpoint drop column rate_paced_until;
      drop table webhook_send;
    `);
  }
}
