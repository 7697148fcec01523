import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { querySql } from '../database/sql.js';
import { traceHeaders } from '../observability/trace-context.js';

export const EVENT_TYPES = ['organization.created', 'policy.created'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event in the caller's transaction (spec section 11: a transactional outbox): it
 * commits exactly when the change it records commits. The `event_fan_out` trigger lists it
 * under every organization on its path and makes a delivery for each endpoint there.
 * `object` is the create's response shape, built by the caller from what it wrote: never a
 * cvc, an account number or an owner tax id (those never reach a read shape). With tracing on,
 * the request's `traceparent` is kept with it: its deliveries continue the request's trace.
 */
export async function recordEvent(em: EntityManager, event: { type: EventType; organizationId: string; object: object }): Promise<void> {
  await querySql(em, 'insert into event (id, type, organization_id, data, trace_parent) values (?, ?, ?, ?::jsonb, ?)', [
    randomUUID(),
    event.type,
    event.organizationId,
    JSON.stringify({ object: event.object }),
    traceHeaders().traceparent ?? null,
  ]);
}
