/**
 * The route a request is counted under when Express matched none (a 401 or 429 answered before
 * routing, the `/graphql` mount): the pattern among `patterns` its path fits (`:name` is one path
 * segment), else `(unmatched)`. A path is never a label value: every 404 would make a series.
 */
export function routeNamer(patterns: string[]): (path: string) => string {
  const exact = new Set(patterns.filter((pattern) => !pattern.includes(':')));
  const templated = patterns
    .filter((pattern) => pattern.includes(':'))
    .map((pattern) => ({ pattern, regex: new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+')}/?$`) }));
  return (path) => {
    if (exact.has(path)) return path;
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    if (exact.has(trimmed)) return trimmed;
    return templated.find(({ regex }) => regex.test(path))?.pattern ?? '(unmatched)';
  };
}
