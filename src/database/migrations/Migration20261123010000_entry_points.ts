import { Migration } from '@mikro-orm/migrations';

/**
 * A caller's entry points (spec section 10, `Viewer.organizations`) are the organizations it
 * created whose parent it cannot reach, plus its org claim's: found by creator, in creation order.
 */
export class Migration20261123010000_entry_points extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index organization_owner_sub_seq_index on organization (owner_sub, seq)');
  }

  override async down(): Promise<void> {
    this.addSql('drop index organization_owner_sub_seq_index');
  }
}
