import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { querySql } from '../database/sql.js';
import { traceHeaders } from '../observability/trace-context.js';

export const EVENT_TYPES = ['organization.created', 'organization.updated', 'policy.created', 'policy.changed', 'policy.cancelled', 'policy.reinstated', 'policy.renewed', 'quote.created'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event in the caller's transaction (spec section 11: a transactional outbox): it
 * commits exactly when the change it records commits. The `event_fan_out` trigger lists it
 * under every organization on its path and makes a delivery for each endpoint there.
 * `object` is the create's response shape, built by the caller from what it wrote: never a
 * cvc, an account number or an owner tax id (those never reach a read shape). With tracing on,
 * the request's `traceparent` is kept with it: its deliveries continue the request's trace.
 */
export async function recordEvent(em: EntityManager, event: RecordedEvent): Promise<void> {
  await querySql(em, `${EVENT_INSERT} values (?, ?, ?, ?::jsonb, ?, ?)`, eventRow(event));
}

export interface RecordedEvent {
  type: EventType;
  organizationId: string;
  /** The `sub` of the caller whose request made the event: its `actor` (contract section 18). */
  actorSub: string;
  object: object;
  /** A change's earlier values of the fields it changed, masked as reads mask them (Stripe's previous_attributes). */
  previousAttributes?: object;
}

/** The columns an event is written with, in the order of `eventRow`'s values. */
export const EVENT_INSERT = 'insert into event (id, type, organization_id, data, trace_parent, actor_sub)';

/** The version of the event's shape (its top-level fields and `data.object`), carried as `apiVersion`. */
export const EVENT_API_VERSION = 'v1';

/** An event's values for EVENT_INSERT (a create that writes in one statement puts them in it). */
export function eventRow(event: RecordedEvent): [string, EventType, string, string, string | null, string] {
  return [
    randomUUID(),
    event.type,
    event.organizationId,
    JSON.stringify(event.previousAttributes ? { object: event.object, previousAttributes: event.previousAttributes } : { object: event.object }),
    traceHeaders().traceparent ?? null,
    event.actorSub,
  ];
}
