import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 22, changing a webhook endpoint (`PATCH /api/v1/webhook-endpoints/{id}`):
 * `rate_limit_per_second`, 1 to 1,000 or null (no limit of its own). Stored and shown on the
 * endpoint; delivery enforces it since Migration20261206100000_webhook_rate_limit. Enabling and
 * disabling use the columns the delivery code already has (`disabled_at`, `disabled_reason`, and
 * the back-off's `failures`, `failing_since`, `retry_at`), so they need none.
 */
export class Migration20261205100000_webhook_endpoint_update extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_endpoint
        add column rate_limit_per_second int
          constraint webhook_endpoint_rate_limit_per_second_check check (rate_limit_per_second between 1 and 1000);
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table webhook_endpoint drop column rate_limit_per_second;`);
  }
}
