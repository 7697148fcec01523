import { randomBytes, randomUUID } from 'node:crypto';
import type { Gateway } from '../database/database.js';
import type { Principal } from '../auth/principal.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import { badUserInput } from '../errors/errors.js';
import { findTargetOrganization, targetOrganizationId } from '../organizations/organization.reads.js';
import type { CreateWebhookEndpointInput } from './webhook-endpoint.input.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import { ENDPOINT_SELECT, findAccessibleEndpoint, type EndpointRead } from './webhook-endpoint.reads.js';
import { webhookUrlProblem, type UrlPolicy } from './webhook-url.js';
import { withQuotas } from '../limits/quotas.js';
import { AUDIT_INSERT, auditRow, type RequestOrigin } from '../outbox/audit-entry.js';

export interface CreateEndpointScope {
  db: Gateway;
  principal: Principal;
  /** The request, for the audit entry (contract section 21). */
  origin: RequestOrigin | null;
  cipher: FieldCipher;
  urls: UrlPolicy;
  /** Set while an Idempotency-Key is claimed: the create marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

/** `whsec_` and base64 of 24 random bytes, as Standard Webhooks and Stripe write secrets. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Registers an endpoint on `organizationId`, else the caller's org (accessible, else 404), for
 * the given event types (all when absent). The URL is checked against the policy (DNS
 * included); the secret is sealed at rest and returned only in this answer.
 */
export async function createWebhookEndpoint(
  scope: CreateEndpointScope,
  input: CreateWebhookEndpointInput,
): Promise<EndpointRead & { secret: string }> {
  const { db, principal } = scope;
  const organizationId = targetOrganizationId(input.organizationId, principal);
  const problem = await webhookUrlProblem(input.url, scope.urls);
  if (problem) throw badUserInput([{ path: 'url', message: problem }]);
  const organization = await findTargetOrganization(db, principal, organizationId, input.organizationId != null);
  const secret = newSecret();
  const sealed = scope.cipher.seal(secret, 'webhook_endpoint.secret');
  const id = randomUUID();
  // The tree's endpoint quota is counted by the database at commit (403 QUOTA_EXCEEDED over it).
  const row = await withQuotas(() =>
    db.transaction(async (tx) => {
      // The endpoint and its audit entry: one statement.
      const [inserted] = await tx.query<EndpointRead>(
        `with made as (insert into webhook_endpoint as w (id, organization_id, url, events, description, secret_ciphertext, secret_key_id, created_by_sub)
       values (?, ?, ?, ?::text[], ?, ?, ?, ?) returning ${ENDPOINT_SELECT}), audited as (${AUDIT_INSERT})
       select * from made`,
        [
          id,
          organization.id,
          input.url,
          input.events ? `{${input.events.join(',')}}` : null,
          input.description ?? null,
          sealed.ciphertext,
          sealed.keyId,
          principal.sub,
          ...auditRow({
            action: 'webhook_endpoint.create',
            actor: scope,
            organizationId: organization.id,
            targets: [{ type: 'webhook_endpoint', id }],
          }),
        ],
      );
      await scope.idempotency?.recordCreated(tx, { type: 'webhookEndpoint', id });
      return inserted;
    }),
  );
  return { ...row, secret };
}

/**
 * The answer of a create that already happened (an Idempotency-Key retry after a crash, or
 * after a 5xx once it committed): the endpoint as created, its secret opened from the row.
 */
export async function createdEndpointAnswer(
  scope: Pick<CreateEndpointScope, 'db' | 'principal' | 'cipher'>,
  id: string,
): Promise<(EndpointRead & { secret: string }) | null> {
  const endpoint = await findAccessibleEndpoint(scope.db, scope.principal, id);
  if (!endpoint) return null;
  const [sealed] = await scope.db.query<{ ciphertext: string; keyId: string }>(
    'select secret_ciphertext as ciphertext, secret_key_id as "keyId" from webhook_endpoint where id = ?',
    [id],
  );
  return { ...endpoint, secret: scope.cipher.open(sealed, 'webhook_endpoint.secret') };
}
