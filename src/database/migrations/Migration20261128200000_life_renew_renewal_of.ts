import { Migration } from '@mikro-orm/migrations';

/**
 * Renewals (contract section 14, "Renew"): a successor names the policy it renews in
 * `renewal_of`. The unique constraint makes a second successor of one policy impossible in the
 * database itself, whoever writes it (the renewal also holds the old policy's row lock, so a
 * racing renewal is refused on its state before it gets here); its index serves `renewedBy` on
 * every read (`where renewal_of = p.id`). The column is set when the successor is inserted and
 * never changed.
 */
export class Migration20261128200000_life_renew_renewal_of extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table policy add column renewal_of uuid references policy (id)
        constraint policy_renewal_of_unique unique;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('alter table policy drop column renewal_of;');
  }
}
