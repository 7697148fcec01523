import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { Principal } from '../auth/principal.js';
import { badUserInput, conflict, ServiceError } from '../graphql/errors.js';

/** A response as kept for replay. */
export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface IdempotentRequest {
  principal: Principal;
  /** What the key is scoped to besides the principal, e.g. `POST /api/v1/policy`. */
  operation: string;
  key: string;
  /** What the request asked for; the same key with another body is refused. */
  request: unknown;
}

/** 1 to 255 printable ASCII characters (contract section 7). */
const KEY = /^[\x20-\x7e]{1,255}$/;

export function assertIdempotencyKey(key: string): void {
  if (!KEY.test(key)) throw badUserInput([{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable characters' }]);
}

/** Key order and whitespace do not make a different request. */
export function fingerprint(request: unknown): string {
  return createHash('sha256').update(stringify(request) ?? 'null').digest('hex');
}

/**
 * Runs `run` at most once per (principal, operation, key) within the retention period:
 *
 * - A transaction-scoped advisory lock on the key: a second request while the first still runs
 *   gets 409 at once, on any instance.
 * - A kept response for the key: the same request gets it replayed; another body gets 422.
 * - Otherwise `run` executes inside this transaction (the entity manager is the request's), and
 *   its response is stored in the same commit. A 5xx, or a server-side failure inside a GraphQL
 *   200, rolls everything back and is not kept, so its retry runs again.
 */
export async function runIdempotently(
  em: EntityManager,
  request: IdempotentRequest,
  retentionSeconds: number,
  run: () => Promise<StoredResponse>,
  isServerFailure: (response: StoredResponse) => boolean,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const scope = stringify([request.principal.sub, request.principal.org, request.operation])!;
  const print = fingerprint(request.request);
  await em.begin();
  try {
    const [{ locked }] = await em.execute<Array<{ locked: boolean }>>(
      'select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked',
      [`${scope}\n${request.key}`],
    );
    if (!locked) throw conflict('A request with this Idempotency-Key is still being processed; retry shortly.');
    const [kept] = await em.execute<Array<{ fingerprint: string; status: number; content_type: string; body: string }>>(
      'select fingerprint, status, content_type, body from idempotency_key where scope = ? and key = ? and expires_at > now()',
      [scope, request.key],
    );
    if (kept) {
      await em.rollback();
      if (kept.fingerprint !== print) {
        throw new ServiceError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request.');
      }
      return { response: { status: kept.status, contentType: kept.content_type, body: kept.body }, replayed: true };
    }
    const response = await run();
    if (response.status >= 500 || isServerFailure(response)) {
      await em.rollback();
      return { response, replayed: false };
    }
    await em.execute(
      `insert into idempotency_key (scope, key, fingerprint, status, content_type, body, expires_at)
       values (?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?))
       on conflict (scope, key) do update set fingerprint = excluded.fingerprint, status = excluded.status,
         content_type = excluded.content_type, body = excluded.body, created_at = now(), expires_at = excluded.expires_at`,
      [scope, request.key, print, response.status, response.contentType, response.body, retentionSeconds],
    );
    await em.commit();
    return { response, replayed: false };
  } catch (error) {
    if (em.isInTransaction()) await em.rollback();
    throw error;
  }
}

/** Removes kept responses past their retention; any instance may run it. */
export async function deleteExpiredKeys(em: EntityManager): Promise<number> {
  const rows = await em.execute<Array<unknown>>('delete from idempotency_key where expires_at <= now() returning 1');
  return rows.length;
}
