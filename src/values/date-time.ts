/**
 * An RFC 3339 date-time with its offset (`2026-12-04T10:00:00Z`, `...+01:00`), as the API takes
 * times (the audit log's range, a webhook recovery's `since`): the shape, and a real instant.
 */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

export function isRfc3339DateTime(value: unknown): value is string {
  return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}

/** What a bad one is told. */
export const RFC3339_MESSAGE = 'must be an RFC 3339 date-time, e.g. 2026-12-04T10:00:00Z';
