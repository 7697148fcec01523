import { Migration } from '@mikro-orm/migrations';

/**
 * Changing an organization (contract section 15): every organization carries a `version`, 1 when
 * created and one more per change, which reads serve (`ETag: "<version>"` in REST) and which
 * `If-Match` / `ifVersion` compare against. Existing rows start at 1.
 */
export class Migration20261128100000_org_update extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table organization add column version integer not null default 1 constraint organization_version_positive check (version >= 1);',
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table organization drop column version;');
  }
}
