/**
 * What a SQL statement does, for its span's name (OpenTelemetry's database conventions:
 * `{db.operation.name} {db.collection.name}`, e.g. `SELECT policy`, `INSERT organization`):
 * its first keyword and its main table. A small reader of the service's own statements, not a
 * SQL parser: it skips comments, literals and parenthesised parts it does not need, and answers
 * `{}` (or an operation alone) for what it does not recognise, so a span is never misnamed by
 * guessing.
 *
 * - `insert into t`, `update t`, `delete from t`: t.
 * - `select ... from t`: the first table of the outer FROM list (a subquery there counts with
 *   its own main table; a CTE's name counts with its CTE's).
 * - `with ... <statement>`: the final statement's, except that a final SELECT over CTEs that
 *   write is named after the first write (`with made as (insert into policy ...) select ...` is
 *   `INSERT policy`: that is what the statement is for).
 *
 * Names are lower-cased unless quoted; a schema-qualified name keeps its schema (`pgboss.job`).
 */
export interface StatementSummary {
  operation?: string;
  collection?: string;
}

type Token = { kind: 'word'; value: string } | { kind: 'name'; value: string } | { kind: 'punct'; value: string };

const WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
/** Words that end an outer FROM list. */
const FROM_ENDS = new Set([
  'where',
  'group',
  'having',
  'window',
  'order',
  'limit',
  'offset',
  'union',
  'intersect',
  'except',
  'for',
  'returning',
  'fetch',
]);

export function summarizeStatement(sql: string): StatementSummary {
  return summarize(tokenize(sql));
}

function summarize(tokens: Token[]): StatementSummary {
  let at = 0;
  while (isPunct(tokens[at], '(')) at++;
  const ctes = new Map<string, StatementSummary>();
  if (isWord(tokens[at], 'with')) {
    at++;
    if (isWord(tokens[at], 'recursive')) at++;
    for (;;) {
      const name = nameAt(tokens, at);
      if (!name) return {};
      at = name.next;
      if (isPunct(tokens[at], '(')) at = closing(tokens, at) + 1;
      if (!isWord(tokens[at], 'as')) return {};
      at++;
      if (isWord(tokens[at], 'not')) at++;
      if (isWord(tokens[at], 'materialized')) at++;
      if (!isPunct(tokens[at], '(')) return {};
      const end = closing(tokens, at);
      ctes.set(name.value, summarize(tokens.slice(at + 1, end)));
      at = end + 1;
      if (!isPunct(tokens[at], ',')) break;
      at++;
    }
  }
  const keyword = tokens[at];
  if (keyword?.kind !== 'word') return {};
  const operation = keyword.value.toUpperCase();
  const own = { operation, ...collectionOf(tokens, at, operation, ctes) };
  if (operation === 'SELECT') {
    const write = [...ctes.values()].find((cte) => cte.operation && WRITES.has(cte.operation));
    if (write) return write;
  }
  return own;
}

function collectionOf(tokens: Token[], at: number, operation: string, ctes: Map<string, StatementSummary>): { collection?: string } {
  const after = (index: number) => {
    let next = index;
    if (isWord(tokens[next], 'only')) next++;
    const name = nameAt(tokens, next);
    return name ? { collection: name.value } : {};
  };
  if (operation === 'INSERT') return isWord(tokens[at + 1], 'into') ? after(at + 2) : {};
  if (operation === 'UPDATE') return after(at + 1);
  if (operation === 'DELETE') return isWord(tokens[at + 1], 'from') ? after(at + 2) : {};
  if (operation !== 'SELECT') return {};
  // The outer FROM list: its items start after `from`, a comma, or a join.
  let index = at + 1;
  for (let depth = 0; index < tokens.length; index++) {
    const token = tokens[index];
    if (isPunct(token, '(')) depth++;
    else if (isPunct(token, ')')) depth--;
    else if (depth === 0 && isWord(token, 'from')) break;
  }
  let firstCte: string | undefined;
  let expectingItem = true;
  for (index++; index < tokens.length; index++) {
    const token = tokens[index];
    if ((token.kind === 'word' && FROM_ENDS.has(token.value)) || isPunct(token, ';')) break;
    if (isPunct(token, '(')) {
      const end = closing(tokens, index);
      if (expectingItem) {
        const inner = summarize(tokens.slice(index + 1, end));
        if (inner.collection) return { collection: inner.collection };
      }
      index = end;
      expectingItem = false;
      continue;
    }
    if (isPunct(token, ',') || isWord(token, 'join')) {
      expectingItem = true;
      continue;
    }
    if (expectingItem && (isWord(token, 'lateral') || isWord(token, 'only'))) continue;
    if (expectingItem) {
      expectingItem = false;
      const name = nameAt(tokens, index);
      if (!name) continue;
      index = name.next - 1;
      // A set-returning function (`from unnest(...)`), not a table.
      if (isPunct(tokens[name.next], '(')) {
        index = closing(tokens, name.next);
        continue;
      }
      const cte = ctes.get(name.value);
      if (!cte) return { collection: name.value };
      firstCte ??= name.value;
    }
  }
  const through = firstCte === undefined ? undefined : ctes.get(firstCte)?.collection;
  return through ? { collection: through } : {};
}

/** A possibly qualified name at `at` (`t`, `"t"`, `s.t`): its text and the index after it. */
function nameAt(tokens: Token[], at: number): { value: string; next: number } | undefined {
  const parts: string[] = [];
  let index = at;
  for (;;) {
    const token = tokens[index];
    if (!token || token.kind === 'punct') break;
    parts.push(token.value);
    index++;
    if (!isPunct(tokens[index], '.')) break;
    index++;
  }
  return parts.length > 0 ? { value: parts.join('.'), next: index } : undefined;
}

/** The index of the parenthesis closing the one at `at` (or the last token). */
function closing(tokens: Token[], at: number): number {
  let depth = 0;
  for (let index = at; index < tokens.length; index++) {
    if (isPunct(tokens[index], '(')) depth++;
    else if (isPunct(tokens[index], ')') && --depth === 0) return index;
  }
  return tokens.length - 1;
}

const isWord = (token: Token | undefined, word: string) => token?.kind === 'word' && token.value === word;
const isPunct = (token: Token | undefined, punct: string) => token?.kind === 'punct' && token.value === punct;

/**
 * Words (lower-cased), quoted names, and the punctuation that matters here; literals, comments,
 * numbers, parameters and operators are dropped (a dropped token is still a separator).
 */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < sql.length) {
    const char = sql[at];
    if (/\s/.test(char)) {
      at++;
    } else if (sql.startsWith('--', at)) {
      const end = sql.indexOf('\n', at);
      at = end === -1 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', at)) {
      const end = sql.indexOf('*/', at + 2);
      at = end === -1 ? sql.length : end + 2;
    } else if (char === "'" || ((char === 'e' || char === 'E') && sql[at + 1] === "'")) {
      at = quotedEnd(sql, char === "'" ? at : at + 1, "'");
      tokens.push({ kind: 'punct', value: 'literal' });
    } else if (char === '"') {
      const end = quotedEnd(sql, at, '"');
      tokens.push({ kind: 'name', value: sql.slice(at + 1, end - 1).replace(/""/g, '"') });
      at = end;
    } else if (char === '$') {
      // A dollar-quoted string ($$...$$, $tag$...$tag$), else a parameter ($1).
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(at))?.[0];
      if (tag) {
        const end = sql.indexOf(tag, at + tag.length);
        at = end === -1 ? sql.length : end + tag.length;
        tokens.push({ kind: 'punct', value: 'literal' });
      } else {
        at = skipWhile(sql, at + 1, /[0-9]/);
      }
    } else if (/[A-Za-z_]/.test(char)) {
      const end = skipWhile(sql, at + 1, /[A-Za-z0-9_$]/);
      tokens.push({ kind: 'word', value: sql.slice(at, end).toLowerCase() });
      at = end;
    } else if ('(),.;'.includes(char) && !(char === '.' && /[0-9]/.test(sql[at + 1] ?? ''))) {
      tokens.push({ kind: 'punct', value: char });
      at++;
    } else if (/[0-9.]/.test(char)) {
      at = skipWhile(sql, at + 1, /[0-9.eE]/);
      tokens.push({ kind: 'punct', value: 'literal' });
    } else {
      // Operators, casts (::), brackets: separators only.
      tokens.push({ kind: 'punct', value: char });
      at++;
    }
  }
  return tokens;
}

/** The index after a quoted run starting at `at` (doubled quotes inside). */
function quotedEnd(sql: string, at: number, quote: string): number {
  let index = at + 1;
  for (;;) {
    const end = sql.indexOf(quote, index);
    if (end === -1) return sql.length;
    if (sql[end + 1] === quote) index = end + 2;
    else return end + 1;
  }
}

function skipWhile(sql: string, at: number, pattern: RegExp): number {
  let index = at;
  while (index < sql.length && pattern.test(sql[index])) index++;
  return index;
}
