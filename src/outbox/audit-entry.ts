import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../database/database.js';
import type { Principal } from '../auth/principal.js';

/**
 * The audit log's one writer (contract section 21, docs/decisions.md "The audit log"): every
 * successful write appends one entry in its own database transaction, as its event is written
 * (record-event.ts). A write that already has a statement puts AUDIT_INSERT in it as one more
 * CTE (`audited as (${AUDIT_INSERT})`, its values `auditRow(...)`), so no round trip is added;
 * `recordAudit` is the statement on its own, for a write that has none to share.
 *
 * The entry's organization is looked up in the insert itself (its `path`, whose first element
 * is the tree the entry's chain belongs to): no entry is written when the organization does not
 * exist, and the organization's id may be an SQL expression over the statement's other CTEs
 * (`auditInsertFor`), for a write that learns it only as it writes (a delete by id).
 */

export const AUDIT_ACTIONS = [
  'organization.create',
  'organization.update',
  'policy.create',
  'policy.change',
  'policy.cancel',
  'policy.reinstate',
  'policy.renew',
  'quote.create',
  'payment.create',
  'refund.create',
  'api_key.create',
  'api_key.rotate',
  'api_key.revoke',
  'webhook_endpoint.create',
  'webhook_endpoint.update',
  'webhook_endpoint.delete',
  'webhook_endpoint.rotate_secret',
  'webhook_endpoint.test',
  'webhook_endpoint.recover',
  'event.redeliver',
  'policy.read',
  'organization.read',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What a request adds to its principal in an entry: where it came from, and its id (X-Request-Id). Null for the service's own work. */
export interface RequestOrigin {
  requestId: string;
  /** The client address as Express judges it (`trust proxy`). */
  ip: string | null;
  userAgent: string | null;
}

/** Who wrote: the principal (a token's `sub`, or a key's `apikey:<id>` and its id) and the request it came in. */
export interface AuditActor {
  principal: Pick<Principal, 'sub' | 'apiKeyId'>;
  origin: RequestOrigin | null;
}

export interface AuditTarget {
  type: 'organization' | 'policy' | 'quote' | 'payment' | 'refund' | 'webhook_endpoint' | 'api_key' | 'transaction' | 'event';
  id: string;
}

export interface AuditRecord {
  action: AuditAction;
  actor: AuditActor;
  /** The organization the write is in: the entry is listed in its subtree and chained in its tree. */
  organizationId: string;
  targets: readonly AuditTarget[];
  /** Each changed field as `{ from, to }`, masked as reads mask them; null on creates. */
  changes?: Record<string, { from: unknown; to: unknown }> | null;
}

/**
 * The insert of one entry whose organization's id is `organizationId`, an SQL expression (a
 * parameter, or a subquery over the statement's CTEs); its other values come from auditRow.
 */
export function auditInsertFor(organizationId: string): string {
  return `insert into audit_entry (id, action, actor_sub, api_key_id, ip, user_agent, request_id, targets, changes, organization_id, path)
    select ?::uuid, ?, ?, ?, ?, ?, ?, ?::json, ?::json, o.id, o.path from organization o where o.id = (${organizationId})`;
}

/** One entry: its values are `auditRow(record)`, the organization's id last. */
export const AUDIT_INSERT = auditInsertFor('?::uuid');

type AuditValues = [string, AuditAction, string, string | null, string | null, string | null, string | null, string, string | null];

/** The values of an entry for auditInsertFor, without the organization. */
export function auditValues(record: AuditRecord): AuditValues {
  const { principal, origin } = record.actor;
  return [
    randomUUID(),
    record.action,
    principal.sub,
    principal.apiKeyId ?? null,
    origin?.ip ?? null,
    // A header is the client's to make long: kept to 512 characters.
    origin?.userAgent?.slice(0, 512) ?? null,
    origin?.requestId ?? null,
    JSON.stringify(record.targets.map(({ type, id }) => ({ type, id }))),
    record.changes == null ? null : JSON.stringify(record.changes),
  ];
}

/** The values of AUDIT_INSERT for `record`. */
export function auditRow(record: AuditRecord): [...AuditValues, string] {
  return [...auditValues(record), record.organizationId];
}

/** Appends an entry in the caller's transaction (for a write with no statement to put it in: an API key's). */
export async function recordAudit(tx: SqlClient, record: AuditRecord): Promise<void> {
  await tx.query(AUDIT_INSERT, auditRow(record));
}
