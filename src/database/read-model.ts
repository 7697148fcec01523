import type { WriteColumn } from './write-model.js';

/**
 * A read model is one column map: each key the response uses, the SQL expression that serves
 * it. The select list and the JSON object of a read are both built from that map, once, at
 * module load, so the field list is written in one place and the SQL stays a constant string
 * (named prepared statements still apply). Maps are checked against their entity with
 * `satisfies ReadColumns<Entity, Hidden>`: a property added to the entity and not to the map
 * (or hidden on purpose) fails to compile.
 */
export type ReadColumns<E, Hidden extends keyof E, Extra extends string = never> = Readonly<
  Record<Exclude<keyof E, Hidden> | Extra, string>
>;

/**
 * A resource's read map from its write map (write-model.ts): each written property as its
 * column over `alias`, but those `hidden` (written, never shown). So a column is named once,
 * in the write map, and a read serves it with no edit. The result still `satisfies` the entity
 * (see above); test/unit/read-models.test.ts holds each key to a field of the GraphQL type, so a
 * written property that must stay hidden fails there until it is listed in `hidden`.
 */
export function readColumnsOf<W extends Readonly<Record<string, WriteColumn>>, Hidden extends keyof W & string>(
  alias: string,
  written: W,
  hidden: readonly Hidden[],
): { readonly [Name in Exclude<keyof W & string, Hidden>]: string } {
  const shown = Object.entries(written).filter(([name]) => !(hidden as readonly string[]).includes(name));
  return Object.fromEntries(shown.map(([name, { column }]) => [name, `${alias}.${column}`])) as {
    readonly [Name in Exclude<keyof W & string, Hidden>]: string;
  };
}

/** The read model's row type: the entity's shown properties, with the extra keys typed by the caller. */
export type ReadOf<E, Hidden extends keyof E> = Pick<E, Exclude<keyof E, Hidden>>;

/** `o.id, o.parent_id as "parentId", ...`: a select list whose names are the map's keys. */
export function selectList(columns: Readonly<Record<string, string>>): string {
  return Object.entries(columns)
    .map(([name, sql]) => (sql.endsWith(`.${name}`) && name === name.toLowerCase() ? sql : `${sql} as "${name}"`))
    .join(', ');
}

/** `json_build_object('parentId', o.parent_id, ...)`: the same row as one JSON object. */
export function jsonObject(columns: Readonly<Record<string, string>>): string {
  return `json_build_object(${Object.entries(columns)
    .map(([name, sql]) => `'${name}', ${sql}`)
    .join(', ')})`;
}

/**
 * The read row of a just-written record, from the values written: each key of the map, null
 * where nothing was written (the column's default is null, as a read would show).
 */
export function pickColumns<K extends string>(columns: Readonly<Record<K, string>>, written: object): Record<K, unknown> {
  const row = {} as Record<K, unknown>;
  for (const name of Object.keys(columns) as K[]) row[name] = (written as Record<string, unknown>)[name] ?? null;
  return row;
}

/** RFC 3339 in UTC, with milliseconds, from a timestamptz. */
export const rfc3339 = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
