import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 25 (contract section 18), branch rest-reads:
 * - Lookup by `internalID` (REST `GET /api/v1/policy?internalID=`, GraphQL
 *   `viewer.policies(internalID:)`) walks `policy_internal_id_index` (internal_id, seq): only the
 *   policies with that key, already in creation order, a cursor a range of the same index.
 * - `event.data` becomes `json`: jsonb re-orders an object's keys (by length, then bytes), and
 *   an event's `data.object` must keep the REST answer's key order. Nothing queries inside it;
 *   it is written once and served as stored. Events written before keep jsonb's order.
 */
export class Migration20261129200000_rest_reads_internal_id extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index policy_internal_id_index on policy (internal_id, seq) where internal_id is not null;
      alter table event alter column data type json using data::json;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table event alter column data type jsonb using data::jsonb;
      drop index policy_internal_id_index;
    `);
  }
}
