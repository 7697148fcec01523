import { preconditionFailed } from '../errors/errors.js';

/**
 * `If-Match` (RFC 9110) as the version a change was made against: absent is none (the last write
 * wins), `*` any (the organization exists), `"<version>"` or a list of them that one version
 * (a list of several can only match one: it is refused unless they agree). A weak tag never
 * matches (If-Match compares strongly), nor does anything malformed: 412, nothing written.
 */
export function ifMatchVersion(header: string | undefined): number | null {
  if (header === undefined || header.trim() === '*') return null;
  const tags = header.split(',').map((tag) => tag.trim());
  const versions = new Set(tags.map((tag) => /^"([1-9][0-9]{0,9})"$/.exec(tag)?.[1] ?? null));
  const [version] = versions;
  if (versions.size !== 1 || version === null || Number(version) > 2_147_483_647) {
    throw preconditionFailed('If-Match must be the ETag of a read, e.g. "3" (quotes included).');
  }
  return Number(version);
}

/**
 * `If-Match` on a record without versions (a webhook endpoint): absent or `*` (RFC 9110: any
 * current representation) passes; any entity tag cannot match one the record never had, so it is
 * 412 and nothing is written, rather than ignored.
 */
export function noEntityTag(header: string | undefined): Record<string, never> {
  if (header === undefined || header.trim() === '*') return {};
  throw preconditionFailed('A webhook endpoint has no ETag: send the change without If-Match (or with If-Match: *).');
}
