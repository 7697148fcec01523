import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 26 (the operation core): a kept answer keeps the error codes it answered, so that its
 * replay names them on the access line and in the metrics without reading them back out of the
 * body. Answers kept before have none (null).
 */
export class Migration20261130100000_kept_answer_codes extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table idempotency_key add column codes text[];');
  }

  override async down(): Promise<void> {
    this.addSql('alter table idempotency_key drop column codes;');
  }
}
