import { ReferenceKind } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { entityMetadata } from '../support/entity-metadata.js';
import { useTestService } from '../support/test-service.js';

/**
 * Entities and migrations are written by hand, side by side: every property an entity maps
 * must have its column in the migrated database, or the first insert or read of it fails; and
 * every column of an entity's table is a property, but the few the database keeps itself. So
 * whichever of the two a new field starts from, this names the other.
 */

/** Columns the database fills and reads itself (sequences, triggers), never written nor served by the service. */
const DATABASE_ONLY = [
  // Creation order, from sequences: the keys the lists and the access check walk.
  'organization.seq',
  'policy.seq',
  'policy_transaction.seq',
  'policy_payment.seq',
  // The ancestry and the owners along it, kept by the organization trigger for the access rule.
  'organization.path',
  'organization.owner_subs',
  // Whether its creator did not create its parent: the entry points' index (migration search).
  'organization.owner_top',
];
describe('entities against the migrated database', () => {
  const service = useTestService();

  it('every column an entity maps exists in its table', async () => {
    const columns = await service.sql<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns where table_schema = current_schema()`,
    );
    const existing = new Set(columns.map((column) => `${column.table_name}.${column.column_name}`));
    const missing: string[] = [];
    for (const meta of Object.values((await entityMetadata()).getAll())) {
      if (meta.virtual || meta.embeddable) continue;
      for (const property of meta.props) {
        if (property.kind === ReferenceKind.ONE_TO_MANY || property.kind === ReferenceKind.MANY_TO_MANY) continue;
        for (const column of property.fieldNames ?? []) {
          if (!existing.has(`${meta.tableName}.${column}`))
            missing.push(`${meta.className}.${property.name} (${meta.tableName}.${column})`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("every column of an entity's table is a property of the entity, but those the database keeps", async () => {
    const columns = await service.sql<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns where table_schema = current_schema()`,
    );
    const entities = Object.values((await entityMetadata()).getAll()).filter((meta) => !meta.virtual && !meta.embeddable);
    const tables = new Set(entities.map((meta) => meta.tableName));
    const mapped = new Set(
      entities.flatMap((meta) =>
        meta.props.flatMap((property) => (property.fieldNames ?? []).map((column) => `${meta.tableName}.${column}`)),
      ),
    );
    const unmapped = columns
      .map((column) => `${column.table_name}.${column.column_name}`)
      .filter((column) => tables.has(column.split('.')[0]) && !mapped.has(column));
    expect(unmapped.filter((column) => !DATABASE_ONLY.includes(column))).toEqual([]);
    expect(DATABASE_ONLY.filter((column) => !unmapped.includes(column))).toEqual([]);
  });
});
