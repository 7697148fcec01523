import { Migration } from '@mikro-orm/migrations';

/**
 * Creation order for cursor pagination: an identity column per table, never reused, so a
 * keyset cursor (`seq > ?`) neither skips nor repeats rows while others are being inserted.
 */
export class Migration20261122010000_ordering extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table organization add column seq bigint generated always as identity;
      create index organization_parent_seq_index on organization (parent_id, seq);
      alter table policy add column seq bigint generated always as identity;
      create index policy_organization_seq_index on policy (organization_id, seq);
      drop index policy_organization_id_index;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      create index policy_organization_id_index on policy (organization_id);
      drop index policy_organization_seq_index;
      alter table policy drop column seq;
      drop index organization_parent_seq_index;
      alter table organization drop column seq;
    `);
  }
}
