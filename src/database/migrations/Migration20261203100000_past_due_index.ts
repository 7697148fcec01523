import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 39: `policies_past_due` (the business metrics' gauge) counts the notices that say past due
 * at every scrape of every instance. A partial index of just those rows makes the count read
 * them alone, not the notice of every policy the sweep has ever seen (one per policy in time).
 */
export class Migration20261203100000_past_due_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index policy_billing_notice_past_due_index on policy_billing_notice (policy_id) where past_due;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index policy_billing_notice_past_due_index;`);
  }
}
