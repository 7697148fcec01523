import type { Principal } from '../auth/principal.js';
import type { Gateway } from '../database/database.js';
import { invalidState } from '../errors/errors.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import type { RequestOrigin } from '../outbox/audit-entry.js';

/**
 * What the deliveries a caller asks for share (contract section 22): a test event
 * (send-test-webhook.ts), a redelivery (redeliver-event.ts) and a recovery
 * (recover-webhook-endpoint.ts) each run as the caller, through the access rule, with an
 * Idempotency-Key's recorder, and are refused alike to a disabled endpoint.
 */
export interface RequestedDeliveryScope {
  db: Gateway;
  principal: Principal;
  origin: RequestOrigin | null;
  /** Set while an Idempotency-Key is claimed: the write marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

/** The type of a test event: not one an endpoint subscribes to (EVENT_TYPES), only ever sent by its request (send-test-webhook.ts). */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * 409 for a delivery asked of a disabled endpoint: it would be dropped unsent (the
 * webhook_delivery_skip_disabled trigger), so the caller is told to enable it first.
 */
export function endpointDisabled(reason: string | null) {
  return invalidState(
    `The webhook endpoint is disabled (${reason ?? 'no reason recorded'}); enable it first with PATCH { "enabled": true } (updateWebhookEndpoint).`,
  );
}
