import { isDeepStrictEqual } from 'node:util';
import { getNamedType, isInputObjectType, isLeafType, isListType, isNonNullType, isObjectType, type GraphQLSchema } from 'graphql';
import { entityMetadata } from './entity-metadata.js';
import type { WriteColumn } from '../../src/database/write-model.js';

/**
 * Round trips built from the schema, so that a field added to a type is written and read back
 * by these tests with no edit to them: a body with every field of an input type, a selection of
 * every field of an object type, and the values sent compared with those read back key by key.
 */

/** A text no other field (nor the same field in another round) has: one stored in another's column shows. */
export const textOf = (field: string, round: number, tag = '') => `${tag}${field}-${round}Ω🐾`;

/**
 * A value for every field of an input type but those `leftOut`: `given[field]` where the rules
 * need a particular value, else a distinct text for a text field. A field of another type that
 * has no value given fails here, naming it: the one case where a new field needs this test edited.
 */
export function everyInputField(
  schema: GraphQLSchema,
  typeName: string,
  given: Record<string, unknown>,
  options: { round?: number; tag?: string; leftOut?: readonly string[] } = {},
): Record<string, unknown> {
  const { round = 1, tag = '', leftOut = [] } = options;
  const type = schema.getType(typeName);
  if (!isInputObjectType(type)) throw new Error(`${typeName} is not an input type`);
  const fields = Object.values(type.getFields()).filter((field) => !leftOut.includes(field.name));
  return Object.fromEntries(
    fields.map((field) => {
      if (Object.hasOwn(given, field.name)) return [field.name, given[field.name]];
      const inner = isNonNullType(field.type) ? field.type.ofType : field.type;
      if (!isListType(inner) && getNamedType(inner).name === 'String') return [field.name, textOf(field.name, round, tag)];
      throw new Error(`${typeName}.${field.name} (${String(field.type)}) needs a value given in this test`);
    }),
  );
}

/**
 * A selection of every field of an object type that needs no argument, with the fields of the
 * objects it holds to `depth` levels; connections (`...Connection` types) are left out.
 */
export function everyField(schema: GraphQLSchema, typeName: string, depth = 2): string {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
  return Object.values(type.getFields())
    .flatMap((field) => {
      if (field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined)) return [];
      const named = getNamedType(field.type);
      if (isLeafType(named)) return [field.name];
      if (!isObjectType(named) || named.name.endsWith('Connection') || depth === 0) return [];
      return [`${field.name} { ${everyField(schema, named.name, depth - 1)} }`];
    })
    .join(' ');
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Where `read` differs from `sent`: every key of `sent` (of its objects, and of each item of its
 * lists) must be the same key of `read` with the same value. Empty when everything came back.
 */
export function mismatches(sent: Record<string, unknown>, read: unknown, path = ''): string[] {
  if (!isObject(read)) return [`${path || 'the answer'}: read back ${JSON.stringify(read)}`];
  return Object.entries(sent).flatMap(([key, value]) => {
    const at = path ? `${path}.${key}` : key;
    if (!Object.hasOwn(read, key)) return [`${at}: not read back`];
    const back = read[key];
    if (isObject(value)) return mismatches(value, back, at);
    if (Array.isArray(value) && Array.isArray(back) && value.length === back.length) {
      return value.flatMap((item, index) =>
        isObject(item) ? mismatches(item, back[index], `${at}[${index}]`) : same(item, back[index], `${at}[${index}]`),
      );
    }
    return same(value, back, at);
  });
}

const same = (sent: unknown, read: unknown, at: string) =>
  isDeepStrictEqual(sent, read) ? [] : [`${at}: sent ${JSON.stringify(sent)}, read back ${JSON.stringify(read)}`];

/**
 * A row as stored, by property: each property a write map writes, read from the column its
 * entity maps it to (MikroORM's metadata, not the write map, so a write map naming another
 * column shows), as `to_jsonb` gives it (dates as `YYYY-MM-DD`, jsonb as itself). A reference
 * is written as its id (`organizationId` for `organization`).
 */
export async function storedRow(
  service: { sql(text: string, values?: unknown[]): Promise<Array<Record<string, unknown>>> },
  entity: string,
  written: Readonly<Record<string, WriteColumn>>,
  id: string,
): Promise<Record<string, unknown>> {
  const meta = (await entityMetadata()).find(entity);
  if (!meta) throw new Error(`no entity ${entity}`);
  const [row] = await service.sql(`select to_jsonb(t) as row from ${meta.tableName} t where t.id = $1`, [id]);
  const stored = row.row as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(written).map((name) => {
      const property = meta.properties[name] ?? meta.properties[name.replace(/Id$/, '')];
      if (!property) throw new Error(`${entity} has no property ${name}`);
      return [name, stored[property.fieldNames[0]]];
    }),
  );
}
