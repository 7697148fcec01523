import { randomUUID } from 'node:crypto';
import type { Transaction } from '../database/database.js';
import { traceHeaders } from '../observability/trace-context.js';
import { AUDIT_INSERT, auditRow, type AuditRecord } from './audit-entry.js';

export const EVENT_TYPES = [
  'organization.created',
  'organization.updated',
  'policy.created',
  'policy.changed',
  'policy.cancelled',
  'policy.reinstated',
  'policy.renewed',
  'policy.payment_recorded',
  'policy.refund_recorded',
  'policy.past_due',
  'quote.created',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event in the caller's transaction (spec section 11: a transactional outbox): it
 * commits exactly when the change it records commits. The `event_fan_out` trigger lists it
 * under every organization on its path and makes a delivery for each endpoint there.
 * `object` is the create's response shape, built by the caller from what it wrote: never a
 * cvc, an account number or an owner tax id (those never reach a read shape). With tracing on,
 * the request's `traceparent` is kept with it: its deliveries continue the request's trace.
 */
export async function recordEvent(tx: Transaction, event: RecordedEvent): Promise<void> {
  await tx.query(`${EVENT_INSERT} values (?, ?, ?, ?::json, ?, ?)`, eventRow(event));
}

export interface RecordedEvent {
  type: EventType;
  organizationId: string;
  /** The `sub` of the caller whose request made the event: its `actor` (contract section 18). */
  actorSub: string;
  object: object;
  /**
   * A policy step's transaction with the charges it wrote (contract section 14, "Versions and
   * ordering"), beside `object`, which then has no charges.
   */
  transaction?: object;
  /** A change's earlier values of the fields it changed, masked as reads mask them (Stripe's previous_attributes). */
  previousAttributes?: object;
}

/** The columns an event is written with, in the order of `eventRow`'s values. */
export const EVENT_INSERT = 'insert into event (id, type, organization_id, data, trace_parent, actor_sub)';

/** The version of the event's shape (its top-level fields and `data.object`), carried as `apiVersion`. */
export const EVENT_API_VERSION = 'v1';

/**
 * An event's values for EVENT_INSERT (a create that writes in one statement puts them in it).
 * `data` is JSON text for a `json` column, which keeps it as written: the object's keys stay in
 * the order its builder gave them, the REST answer's (contract section 18; jsonb would sort them).
 */
export function eventRow(event: RecordedEvent): [string, EventType, string, string, string | null, string] {
  return [
    randomUUID(),
    event.type,
    event.organizationId,
    JSON.stringify(eventData(event)),
    traceHeaders().traceparent ?? null,
    event.actorSub,
  ];
}

/** `{ object, transaction?, previousAttributes? }`, in that order, without the parts the event has not. */
function eventData(event: RecordedEvent): object {
  return {
    object: event.object,
    ...(event.transaction ? { transaction: event.transaction } : {}),
    ...(event.previousAttributes ? { previousAttributes: event.previousAttributes } : {}),
  };
}

/**
 * The `data` of an event whose object has one value only its insert statement knows (a
 * server-assigned policy number, a quote's `expiresAt` from the database clock), written where it
 * belongs without re-ordering the keys (jsonb_set would, through jsonb): the JSON text before and
 * after that value. A statement writes `(before || to_json(value)::text || after)::json`
 * (FILLED_IN_DATA). The value is marked by a fresh UUID, which nothing else in the text can hold.
 */
export function eventRowFilledIn(event: RecordedEvent, key: string): [string, EventType, string, string, string, string | null, string] {
  const marker = randomUUID();
  const [id, type, organizationId, , traceparent, actorSub] = eventRow(event);
  const text = JSON.stringify(eventData({ ...event, object: { ...event.object, [key]: marker } }));
  const [before, after] = text.split(`"${marker}"`);
  return [id, type, organizationId, before, after, traceparent, actorSub];
}

/** The data column's value in an insert that fills in `value` (an SQL expression): see eventRowFilledIn. */
export const FILLED_IN_DATA = (value: string) => `(?::text || to_json(${value})::text || ?::text)::json`;

/** An event and the write's audit entry (audit-entry.ts) in one statement. */
const EVENT_AND_AUDIT = `with recorded as (${EVENT_INSERT} values (?, ?, ?, ?::json, ?, ?)) ${AUDIT_INSERT}`;

/** recordEvent, with the write's audit entry in the same statement: no round trip added. */
export async function recordEventAndAudit(tx: Transaction, event: RecordedEvent, audit: AuditRecord): Promise<void> {
  await tx.query(EVENT_AND_AUDIT, [...eventRow(event), ...auditRow(audit)]);
}
