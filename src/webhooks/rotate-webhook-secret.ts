import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import type { Gateway } from '../database/database.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import { auditInsertFor, auditValues, type RequestOrigin } from '../outbox/audit-entry.js';
import { isUuid } from '../values/identifiers.js';
import { newSecret } from './create-webhook-endpoint.js';
import { endpointNotFound } from './webhook-endpoint.reads.js';

export interface RotateSecretScope {
  db: Gateway;
  principal: Principal;
  origin: RequestOrigin | null;
  cipher: FieldCipher;
  /** Set while an Idempotency-Key is claimed: the rotation marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

/** Contract section 22: a rotation's grace, 0 to 7 days, a day unless asked. */
export const SECRET_GRACE_DEFAULT_SECONDS = 86_400;
export const SECRET_GRACE_MAX_SECONDS = 604_800;

/**
 * A new secret for live endpoint `id` (accessible, else 404), answered once. The secret it
 * replaces signs every delivery beside the new one for `graceSeconds` more (Standard Webhooks:
 * `v1,<new> v1,<old>`); a second rotation within that time replaces the kept one, so at most two
 * secrets sign. One statement: the endpoint's row, and its audit entry (`changes` null: a secret
 * is never shown, so there is nothing to show of it).
 */
export async function rotateWebhookSecret(
  scope: RotateSecretScope,
  id: string,
  graceSeconds: number | null | undefined,
): Promise<{ secret: string }> {
  if (!isUuid(id)) throw endpointNotFound();
  const secret = newSecret();
  const sealed = scope.cipher.seal(secret, 'webhook_endpoint.secret');
  const access = accessPredicate('o', scope.principal);
  return scope.db.transaction(async (tx) => {
    const [rotated] = await tx.query<{ organizationId: string }>(
      `with rotated as (
         update webhook_endpoint w set
           previous_secret_ciphertext = w.secret_ciphertext, previous_secret_key_id = w.secret_key_id,
           previous_secret_until = now() + make_interval(secs => ?::float8),
           secret_ciphertext = ?, secret_key_id = ?
         from organization o
         where w.id = ? and w.deleted_at is null and o.id = w.organization_id and ${access.sql}
         returning w.id, w.organization_id
       ), audited as (${auditInsertFor('select organization_id from rotated')})
       select organization_id as "organizationId" from rotated`,
      [
        graceSeconds ?? SECRET_GRACE_DEFAULT_SECONDS,
        sealed.ciphertext,
        sealed.keyId,
        id.toLowerCase(),
        ...access.params,
        ...auditValues({
          action: 'webhook_endpoint.rotate_secret',
          actor: { principal: scope.principal, origin: scope.origin },
          organizationId: '',
          targets: [{ type: 'webhook_endpoint', id: id.toLowerCase() }],
          changes: null,
        }),
      ],
    );
    if (!rotated) throw endpointNotFound();
    await scope.idempotency?.recordCreated(tx, { type: 'webhookEndpoint', id: id.toLowerCase() });
    return { secret };
  });
}
