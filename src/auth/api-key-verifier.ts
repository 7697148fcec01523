import type { Logger } from 'pino';
import type { SqlClient } from '../database/database.js';
import { looksLikeApiKey, parseApiKey } from './api-key-format.js';
import type { ApiKeyHashes } from './api-key-hashes.js';
import type { Principal } from './principal.js';
import type { ApiKeyScope } from './scopes.js';
import { TokenRejected, type TokenVerifier } from './token-verifier.js';

/** What authenticating needs of a key's row. Times in epoch milliseconds. */
interface KeyRecord {
  id: string;
  organizationId: string;
  scopes: ApiKeyScope[];
  expiresAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

export interface ApiKeyVerifierSettings {
  /** How long an instance trusts what it read of a key: a revocation reaches it within this (contract section 20: 2 s). */
  cacheMilliseconds: number;
  /** `last_used_at` is written at most this often per key (contract section 20: once a minute). */
  touchMilliseconds: number;
  logger: Logger;
}

/**
 * A revocation reaches every instance within a second (the contract asks 2 s), and a key's
 * `last_used_at` moves at most once a minute.
 */
export const API_KEY_VERIFIER_SETTINGS = (logger: Logger): ApiKeyVerifierSettings => ({
  cacheMilliseconds: 1000,
  touchMilliseconds: 60_000,
  logger,
});

/** Keys kept at most; past it the cache starts over (a flood of distinct keys costs lookups, not memory). */
const MAX_CACHED = 10_000;

const KEY_LOOKUP = `select id, organization_id as "organizationId", scopes,
  (extract(epoch from expires_at) * 1000)::float8 as "expiresAt",
  (extract(epoch from revoked_at) * 1000)::float8 as "revokedAt",
  (extract(epoch from last_used_at) * 1000)::float8 as "lastUsedAt"
  from api_key where hash = any(?::text[])`;

/**
 * Authenticates `opk_…` credentials (contract section 20) as principals: `sub` `apikey:<id>`,
 * `org` the key's organization, and its scopes. A malformed key or a wrong checksum is refused
 * before any statement. A key's row is read at most once per `cacheMilliseconds` per instance
 * (and one read is shared by the requests that wait for it), so that a revocation or a rotation's
 * end reaches every instance within that time, without a notification channel: LISTEN needs a
 * session of its own, which a transaction-pooling PgBouncer does not give (docs/decisions.md).
 */
export function createApiKeyVerifier(db: SqlClient, hashes: ApiKeyHashes, settings: ApiKeyVerifierSettings): TokenVerifier {
  const cache = new Map<string, { readAt: number; record: Promise<KeyRecord | null> }>();
  const touched = new Map<string, number>();

  const lookUp = (hash: string, candidates: string[], now: number): Promise<KeyRecord | null> => {
    const cached = cache.get(hash);
    if (cached && now - cached.readAt < settings.cacheMilliseconds) return cached.record;
    if (cache.size >= MAX_CACHED) cache.clear();
    const record = db.query<KeyRecord>(KEY_LOOKUP, [`{${candidates.join(',')}}`]).then(([row]) => row ?? null);
    const entry = { readAt: now, record };
    cache.set(hash, entry);
    // A failed read is not kept (the next request reads again), unless a later read has replaced it.
    record.catch(() => cache.get(hash) === entry && cache.delete(hash));
    return record;
  };

  const touch = (record: KeyRecord, now: number) => {
    const last = Math.max(record.lastUsedAt ?? 0, touched.get(record.id) ?? 0);
    if (now - last < settings.touchMilliseconds) return;
    touched.set(record.id, now);
    if (touched.size > MAX_CACHED) touched.clear();
    // Once a minute across instances too: the database keeps the later of two racing writes out.
    db.query(
      `update api_key set last_used_at = now() where id = ? and (last_used_at is null or last_used_at <= now() - interval '1 minute')`,
      [record.id],
    ).catch((error: unknown) =>
      settings.logger.warn({ err: error, apiKeyId: record.id }, 'could not record when an API key was last used'),
    );
  };

  return async (credential) => {
    if (!parseApiKey(credential))
      throw new TokenRejected('the API key is malformed or its checksum does not match; check it was copied whole');
    const candidates = hashes.candidates(credential);
    const now = Date.now();
    const record = await lookUp(candidates[0], candidates, now);
    if (!record) throw new TokenRejected('no such API key');
    if (record.revokedAt !== null) throw new TokenRejected('this API key was revoked');
    if (now >= record.expiresAt) throw new TokenRejected(`this API key expired at ${new Date(record.expiresAt).toISOString()}`);
    touch(record, now);
    return apiKeyPrincipal(record);
  };
}

function apiKeyPrincipal(record: KeyRecord): Principal {
  return { sub: `apikey:${record.id}`, org: record.organizationId, apiKeyId: record.id, scopes: record.scopes };
}

/**
 * One verifier for every bearer credential: an `opk_` key to the keys' verifier, anything else to
 * the JWT verifier. Both give the same principal shape, so everything after authentication has
 * one path (the access rule, the scopes, the rate limits by `sub`).
 */
export function credentialVerifier(verifyToken: TokenVerifier, verifyKey: TokenVerifier): TokenVerifier {
  return (credential) => (looksLikeApiKey(credential) ? verifyKey(credential) : verifyToken(credential));
}
