import { Migration } from '@mikro-orm/migrations';

/**
 * Responses kept for `Idempotency-Key` replays (spec section 7), in the database so that
 * any instance can replay them. A row is written in the same transaction as the create it
 * answers, so a key is never recorded for work that was rolled back, nor work lost from one.
 */
export class Migration20261122020000_idempotency extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table idempotency_key (
        scope text not null,
        key text not null,
        fingerprint text not null,
        status smallint not null,
        content_type text not null,
        body text not null,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        primary key (scope, key)
      );
      create index idempotency_key_expires_at_index on idempotency_key (expires_at);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table idempotency_key;');
  }
}
