import { randomUUID } from 'node:crypto';
import type { ApiKeyHashes } from '../auth/api-key-hashes.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import type { Gateway, Transaction } from '../database/database.js';
import { conflict } from '../errors/errors.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import { recordAudit, type AuditRecord, type AuditTarget, type RequestOrigin } from '../outbox/audit-entry.js';
import { rfc3339 } from '../database/read-model.js';
import { findTargetOrganization, targetOrganizationId } from '../organizations/organization.reads.js';
import { isUuid } from '../values/identifiers.js';
import { API_KEY_DEFAULT_DAYS, ROTATION_DEFAULT_GRACE_SECONDS, type CreateApiKeyInput, type RotateApiKeyInput } from './api-key.input.js';
import { API_KEY_SELECT, apiKeyNotFound, type ApiKeyRead } from './api-key.reads.js';

export interface ApiKeyWriteScope {
  db: Gateway;
  /** A token's principal: the scope gate keeps keys out of these writes (contract section 20). */
  principal: Principal;
  hashes: ApiKeyHashes;
  /** Where the request came from, for its audit entry (contract section 21). */
  origin: RequestOrigin | null;
  /** Set while an Idempotency-Key is claimed: the write marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

export type CreatedApiKeyRead = ApiKeyRead & { key: string };

/** The columns a new key is written with; `?` for each value of `newKeyValues`, `expires_at` from the database's clock. */
const INSERT_KEY = `insert into api_key as k (id, organization_id, name, scopes, prefix, hash, lifetime_days, created_by_sub, rotated_from, expires_at)
  values (?, ?, ?, ?::text[], ?, ?, ?, ?, ?, now() + make_interval(days => ?::int)) returning ${API_KEY_SELECT}`;

interface NewKey {
  organizationId: string;
  name: string;
  scopes: readonly string[];
  lifetimeDays: number;
  rotatedFrom: string | null;
}

async function insertKey(tx: Transaction, scope: ApiKeyWriteScope, key: NewKey): Promise<CreatedApiKeyRead> {
  const issued = scope.hashes.issue();
  const id = randomUUID();
  const [row] = await tx.query<ApiKeyRead>(INSERT_KEY, [
    id,
    key.organizationId,
    key.name,
    `{${key.scopes.join(',')}}`,
    issued.prefix,
    issued.hash,
    key.lifetimeDays,
    scope.principal.sub,
    key.rotatedFrom,
    key.lifetimeDays,
  ]);
  await scope.idempotency?.recordCreated(tx, { type: 'apiKey', id });
  return { ...row, key: issued.key };
}

/**
 * A key for `organizationId`, else the token's org (accessible, else 404): its text is in this
 * answer and nowhere else; only its keyed hash is stored.
 */
export async function createApiKey(scope: ApiKeyWriteScope, input: CreateApiKeyInput): Promise<CreatedApiKeyRead> {
  const organizationId = targetOrganizationId(input.organizationId, scope.principal);
  const organization = await findTargetOrganization(scope.db, scope.principal, organizationId, input.organizationId != null);
  return scope.db.transaction(async (tx) => {
    const made = await insertKey(tx, scope, {
      organizationId: organization.id,
      name: input.name,
      scopes: input.scopes,
      lifetimeDays: input.expiresInDays ?? API_KEY_DEFAULT_DAYS,
      rotatedFrom: null,
    });
    await audited(tx, scope, 'api_key.create', made, [{ type: 'api_key', id: made.id }], null);
    return made;
  });
}

/**
 * A new key in place of key `id` (same name, organization, scopes and lifetime); the old one
 * keeps working for `graceSeconds`, never past its own expiry (unkey#5892: a rotation must not
 * make a key live longer). The old key's row is locked, so two racing rotations give two new
 * keys one after the other, each shortening the old key's life, never lengthening it.
 */
export async function rotateApiKey(
  scope: ApiKeyWriteScope,
  id: string,
  input: RotateApiKeyInput | null | undefined,
): Promise<CreatedApiKeyRead> {
  if (!isUuid(id)) throw apiKeyNotFound();
  const access = accessPredicate('o', scope.principal);
  const grace = input?.graceSeconds ?? ROTATION_DEFAULT_GRACE_SECONDS;
  const oldId = id.toLowerCase();
  return scope.db.transaction(async (tx) => {
    const [old] = await tx.query<{ organizationId: string; name: string; scopes: string[]; lifetimeDays: number; expiresAt: string }>(
      `select k.organization_id as "organizationId", k.name, k.scopes, k.lifetime_days as "lifetimeDays", ${rfc3339('k.expires_at')} as "expiresAt"
       from api_key k join organization o on o.id = k.organization_id
       where k.id = ? and k.revoked_at is null and k.expires_at > now() and ${access.sql} for update of k`,
      [oldId, ...access.params],
    );
    if (!old) throw apiKeyNotFound();
    const [shortened] = await tx.query<{ expiresAt: string }>(
      `update api_key set expires_at = least(expires_at, now() + make_interval(secs => ?::float8)) where id = ?
       returning ${rfc3339('expires_at')} as "expiresAt"`,
      [grace, oldId],
    );
    const made = await insertKey(tx, scope, { ...old, rotatedFrom: oldId });
    // The new key is made; the old key's one change is how long it lives.
    const targets: AuditTarget[] = [
      { type: 'api_key', id: made.id },
      { type: 'api_key', id: oldId },
    ];
    await audited(tx, scope, 'api_key.rotate', made, targets, { expiresAt: { from: old.expiresAt, to: shortened.expiresAt } });
    return made;
  });
}

/** Revokes key `id` (accessible, unrevoked, else 404): every instance refuses it within 2 s. */
export async function revokeApiKey(scope: Pick<ApiKeyWriteScope, 'db' | 'principal' | 'origin'>, id: string): Promise<string> {
  if (!isUuid(id)) throw apiKeyNotFound();
  const access = accessPredicate('o', scope.principal);
  await scope.db.transaction(async (tx) => {
    const [revoked] = await tx.query<{ id: string; organizationId: string; revokedAt: string }>(
      `update api_key k set revoked_at = now() from organization o
       where k.id = ? and k.revoked_at is null and o.id = k.organization_id and ${access.sql}
       returning k.id, k.organization_id as "organizationId", ${rfc3339('k.revoked_at')} as "revokedAt"`,
      [id.toLowerCase(), ...access.params],
    );
    if (!revoked) throw apiKeyNotFound();
    const changes = { revokedAt: { from: null, to: revoked.revokedAt } };
    await audited(tx, scope, 'api_key.revoke', revoked, [{ type: 'api_key', id: revoked.id }], changes);
  });
  return id;
}

/** The write's audit entry, in its transaction (contract section 21): a key's writes have no event statement to share. */
function audited(
  tx: Transaction,
  scope: Pick<ApiKeyWriteScope, 'principal' | 'origin'>,
  action: 'api_key.create' | 'api_key.rotate' | 'api_key.revoke',
  key: { organizationId: string },
  targets: readonly AuditTarget[],
  changes: AuditRecord['changes'],
): Promise<void> {
  const actor = { principal: scope.principal, origin: scope.origin };
  return recordAudit(tx, { action, actor, organizationId: key.organizationId, targets, changes });
}

/**
 * An Idempotency-Key retry of a create or rotation that already happened: the key's text was
 * shown once and is stored nowhere, so it cannot be answered again. The 409 names the key made,
 * so the caller can revoke it and make another (docs/decisions.md, "API keys").
 */
export function keyShownOnce(id: string) {
  return conflict(
    `This Idempotency-Key already made API key ${id}, whose text was shown once and is stored nowhere: use it if you kept it, else revoke it (DELETE /api/v1/api-keys/${id}) and create another.`,
  );
}
