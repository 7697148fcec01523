import { Migration } from '@mikro-orm/migrations';

/**
 * Contract section 22: an endpoint's secret rotated with a grace. The secret it replaced is kept,
 * sealed as the secret is, until `previous_secret_until`: every delivery until then carries both
 * signatures, so a receiver verifying with either keeps working while it changes its secret.
 */
export class Migration20261205120000_webhook_secret_rotation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_endpoint
        add column previous_secret_ciphertext text,
        add column previous_secret_key_id text,
        add column previous_secret_until timestamptz;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table webhook_endpoint
        drop column previous_secret_ciphertext, drop column previous_secret_key_id, drop column previous_secret_until;
    `);
  }
}
