import { createHash } from 'node:crypto';

/**
 * The audit log's hash chain (contract section 21, docs/decisions.md "The audit log"): each
 * sealed entry's `hash` is SHA-256 (hex) of the canonical JSON of the entry as the API shows it,
 * plus its tree (`rootId`), its place in the tree's chain (`position`, 1, 2, ...) and the hash
 * of the entry before it there (`prevHash`; GENESIS for the first). Canonical JSON: object keys
 * sorted by UTF-16 code units at every depth, no whitespace, strings and numbers as
 * JSON.stringify writes them (RFC 8785 for the values an entry holds). Anyone holding an export
 * (its lines carry `position` and `prevHash`) can recompute every hash.
 */

export const GENESIS = '0'.repeat(64);

/** A timestamp as the log shows and hashes it: UTC, microseconds, e.g. 2026-12-04T10:00:00.123456Z. */
export const auditTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** An entry as reads serve it (over the row alias `a`), in the order of the REST answer. */
export const AUDIT_ENTRY_SELECT = `a.id, ${auditTime('a.occurred_at')} as "occurredAt", a.action,
  json_build_object('sub', a.actor_sub, 'apiKeyId', a.api_key_id, 'ip', a.ip, 'userAgent', a.user_agent) as actor,
  a.targets, a.organization_id as "organizationId", a.request_id as "requestId", a.changes, a.hash`;

/** What the chain needs besides (over `a`). */
export const AUDIT_CHAIN_SELECT = `a.root_id as "rootId", a.position::text as position, a.prev_hash as "prevHash"`;

export interface AuditEntryRead {
  id: string;
  occurredAt: string;
  action: string;
  actor: { sub: string; apiKeyId: string | null; ip: string | null; userAgent: string | null };
  targets: Array<{ type: string; id: string }>;
  organizationId: string;
  requestId: string | null;
  changes: Record<string, unknown> | null;
  hash: string | null;
}

export interface ChainedEntryRead extends AuditEntryRead {
  rootId: string;
  position: string | null;
  prevHash: string | null;
}

/** JSON with every object's keys sorted, no whitespace. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

/** An entry's hash at `position` in its tree's chain, after `prevHash`. */
export function entryHash(entry: AuditEntryRead & { rootId: string }, position: number, prevHash: string): string {
  const { id, occurredAt, action, actor, targets, organizationId, requestId, changes, rootId } = entry;
  const hashed = { id, occurredAt, action, actor, targets, organizationId, requestId, changes, rootId, position, prevHash };
  return createHash('sha256').update(canonicalJson(hashed)).digest('hex');
}
