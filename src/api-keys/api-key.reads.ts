import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import type { SqlClient } from '../database/database.js';
import { rfc3339 } from '../database/read-model.js';
import { notFound } from '../errors/errors.js';
import { pageOf } from '../graphql/connection.js';
import { isUuid } from '../values/identifiers.js';
import type { ApiKey } from './api-key.type.js';

/** A key as reads show it (alias `k`). A revoked key is gone from reads, as a deleted endpoint is. */
export const API_KEY_SELECT = `k.id, k.name, k.organization_id as "organizationId", k.scopes, k.prefix,
  ${rfc3339('k.created_at')} as "createdAt", k.created_by_sub as "createdBy", ${rfc3339('k.expires_at')} as "expiresAt",
  ${rfc3339('k.last_used_at')} as "lastUsedAt"`;

export type ApiKeyRead = ApiKey;

export const apiKeyNotFound = () => notFound('API key not found.');

/** An unrevoked key by id if its organization is accessible. */
export async function findAccessibleApiKey(db: SqlClient, principal: Principal, id: string): Promise<ApiKeyRead | null> {
  if (!isUuid(id)) return null;
  const access = accessPredicate('o', principal);
  const [row] = await db.query<ApiKeyRead>(
    `select ${API_KEY_SELECT} from api_key k join organization o on o.id = k.organization_id
     where k.id = ? and k.revoked_at is null and ${access.sql}`,
    [id.toLowerCase(), ...access.params],
  );
  return row ?? null;
}

/** A page of the unrevoked keys of one (already access-checked) organization, oldest first. */
export async function apiKeysPage(db: SqlClient, organizationId: string, first: number, after: string) {
  const rows = await db.query<ApiKeyRead & { seq: string }>(
    `select ${API_KEY_SELECT}, k.seq from api_key k
     where k.organization_id = ? and k.revoked_at is null and k.seq > ?::bigint order by k.seq limit ?`,
    [organizationId, after, first + 1],
  );
  return pageOf<ApiKeyRead>(rows, first);
}
