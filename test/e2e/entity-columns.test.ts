import { ReferenceKind } from '@mikro-orm/core';
import { describe, expect, it } from 'vitest';
import { entityMetadata } from '../support/entity-metadata.js';
import { useTestService } from '../support/test-service.js';

/**
 * Entities and migrations are written by hand, side by side: every property an entity maps
 * must have its column in the migrated database, or the first insert or read of it fails.
 */
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
});
