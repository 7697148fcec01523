import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 37 (M1): an answer too large to keep, even compressed, keeps its SHA-256 digest, so that
 * a replay rebuilt from what the request created is answered only when it is that answer byte
 * for byte (src/idempotency/idempotency.ts). Rows kept before have none (null).
 */
export class Migration20261201000000_kept_answer_digest extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table idempotency_key add column answer_digest text;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table idempotency_key drop column answer_digest;');
  }
}
