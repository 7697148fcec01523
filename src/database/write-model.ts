/**
 * A write model is the mirror of a read model (read-model.ts): one map from each property a
 * write stores to its column and PostgreSQL type. Rows travel as one JSON array keyed by
 * property name and are unpacked by `jsonb_to_recordset`, so a value can only reach the column
 * its name maps to: no positional list where a value one place off lands in another column.
 * Maps are checked against their entity (`satisfies WriteColumns<Entity, Omitted>`: a property
 * added to the entity and not to the map fails to compile), and rows against the same entity
 * (`WriteOf<Entity, Omitted>`: every property, with its entity type).
 */
export interface WriteColumn {
  column: string;
  /** The PostgreSQL type the JSON value is read as. */
  type: string;
  /** The SQL stored instead of the plain value, given the value's expression (e.g. a default). */
  value?: (given: string) => string;
}

export type WriteColumns<E, Omitted extends keyof E, Extra extends string = never> = Readonly<
  Record<Exclude<keyof E, Omitted> | Extra, WriteColumn>
>;

/** One row's values: every written property of the entity with its type, plus the extra keys. */
export type WriteOf<E, Omitted extends keyof E, Extra extends object = object> = Pick<E, Exclude<keyof E, Omitted>> & Extra;

/**
 * `insert into <table> (<columns>) select <values> from jsonb_to_recordset(?::jsonb) as r(...)`:
 * one parameter, the rows as a JSON array (`JSON.stringify(rows)`). A constant string per map,
 * built once at module load.
 */
export function insertStatement(table: string, columns: Readonly<Record<string, WriteColumn>>): string {
  const entries = Object.entries(columns);
  const names = entries.map(([, { column }]) => column).join(', ');
  const values = entries.map(([name, { value }]) => (value ? value(`r."${name}"`) : `r."${name}"`)).join(', ');
  const record = entries.map(([name, { type }]) => `"${name}" ${type}`).join(', ');
  return `insert into ${table} (${names}) select ${values} from jsonb_to_recordset(?::jsonb) as r(${record})`;
}

/**
 * `update <table> as <alias> set <column> = r."<name>", ... <also> from jsonb_to_record(?::jsonb)
 * as r(...) where <where>`: the first parameter is the row as a JSON object (`JSON.stringify`),
 * the rest are `where`'s. Every property of the map is written: the caller sends the row whole.
 */
export function updateStatement(
  table: string,
  alias: string,
  columns: Readonly<Record<string, WriteColumn>>,
  clauses: { also?: string; where: string; returning?: string },
): string {
  const entries = Object.entries(columns);
  const sets = entries.map(([name, { column, value }]) => `${column} = ${value ? value(`r."${name}"`) : `r."${name}"`}`);
  if (clauses.also) sets.push(clauses.also);
  const record = entries.map(([name, { type }]) => `"${name}" ${type}`).join(', ');
  const returning = clauses.returning ? ` returning ${clauses.returning}` : '';
  return `update ${table} as ${alias} set ${sets.join(', ')} from jsonb_to_record(?::jsonb) as r(${record}) where ${clauses.where}${returning}`;
}
