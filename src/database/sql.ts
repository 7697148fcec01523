/**
 * A statement built around an access predicate's SQL (auth/access-rule.ts), built once per
 * predicate: the same string object comes back each time, so it is neither rebuilt nor hashed
 * again to find its prepared statement (a policy read's text is a kilobyte).
 */
export function perAccess(build: (access: string) => string): (access: string) => string {
  const built = new Map<string, string>();
  return (access) => {
    let sql = built.get(access);
    if (sql === undefined) built.set(access, (sql = build(access)));
    return sql;
  };
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`, ... */
export function positional(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${++index}`);
}

/** A PostgreSQL array literal of ids (uuids need no quoting). */
export function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`;
}
