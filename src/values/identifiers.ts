const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are checked before any query: PostgreSQL rejects a malformed uuid with an error (a 500). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A policy number: an integer from 1 to 2^53 - 1. */
export function isPolicyNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** A REST path segment that can name a policy: digits only, no sign, no leading zero. */
export function parsePolicyNumber(segment: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(segment)) return null;
  const number = Number(segment);
  return isPolicyNumber(number) ? number : null;
}
