import type { Gateway, SqlClient, Transaction } from '../database/database.js';
import { createHash, randomUUID } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';
import stringify from 'safe-stable-stringify';
import type { Principal } from '../auth/principal.js';
import { badUserInput, conflict, ServiceError } from '../errors/errors.js';
import type { RequestFingerprints } from '../crypto/request-fingerprint.js';
import type { FieldCipher } from '../crypto/field-cipher.js';

/** A response as kept for replay, with the error codes it answered (none for answers kept before they were). */
export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
  codes?: readonly string[];
}

/** What a create made, recorded on its key so that its answer can be rebuilt from the record. */
export type CreatedRecord =
  | { type: 'policy'; number: number }
  | { type: 'organization'; id: string }
  | { type: 'webhookEndpoint'; id: string }
  | { type: 'quote'; id: string }
  | { type: 'apiKey'; id: string }
  | { type: 'webhookDelivery'; id: string }
  | { type: 'webhookRecovery'; id: string; queued: number };

/** Handed to a create through its request context while the request holds a key. */
export interface IdempotencyRecorder {
  /** Inside the create's own transaction: the key and the record commit together. */
  recordCreated(tx: SqlClient, created: CreatedRecord): Promise<void>;
}

export interface IdempotentRequest {
  principal: Principal;
  /** What the key is scoped to besides the principal, e.g. `POST /api/v1/policy`. */
  operation: string;
  key: string;
  /** What the request asked for; the same key with another body is refused. */
  request: unknown;
}

export interface IdempotencySettings {
  fingerprints: RequestFingerprints;
  /**
   * Kept answers are sealed at rest: they hold personal data, and a webhook endpoint's answer
   * its signing secret. A row kept before (no prefix) is read as it is.
   */
  cipher: FieldCipher;
  /** How long a key and its answer are kept (spec: 24 hours). */
  retentionSeconds: number;
  /**
   * The most bytes a kept answer takes once compressed. A larger one is not kept: its digest is,
   * and its replay is rebuilt from the record it created, answered only when it is the same.
   */
  keptResponseMaxBytes: number;
  /** How long a claim holds the key before another request may take over (after a crash). */
  claimSeconds: number;
}

export interface IdempotentRun {
  /** Runs the request; creates call `recorder.recordCreated` in their transaction. */
  execute(recorder: IdempotencyRecorder): Promise<StoredResponse>;
  /** The answer to a create that already happened, read back from what it created. */
  rebuild(created: CreatedRecord): Promise<StoredResponse>;
  /**
   * Whether an answer is kept for replays: one that says "no" (a 4xx of the create that ran),
   * not one that says "not now" (5xx, 429) nor a refusal before anything ran.
   */
  keep(response: StoredResponse): boolean;
}

const SEALED = 'sealed:';
/** A kept answer compressed with brotli, then sealed (issue 37: lifecycle answers are kept whole). */
const SEALED_BROTLI = 'sealed-br:';
const KEPT_BODY_COLUMN = 'idempotency_key.body';

/** 1 to 255 printable ASCII characters (spec section 7). */
const KEY = /^[\x20-\x7e]{1,255}$/;

export function assertIdempotencyKey(key: string): void {
  if (!KEY.test(key)) throw badUserInput([{ path: 'Idempotency-Key', message: 'must be 1 to 255 printable characters' }]);
}

interface KeptRow {
  fingerprint: string;
  finished: boolean;
  status: number | null;
  content_type: string | null;
  body: string | null;
  codes: string[] | null;
  created: CreatedRecord | null;
  digest: string | null;
  locked: boolean;
  expired: boolean;
}

/**
 * `Idempotency-Key` in PostgreSQL, in short transactions with recovery points, the way Stripe
 * describes it ("Implementing Stripe-like idempotency keys in Postgres"):
 *
 * 1. Claim: a row for (principal, operation, key) with a keyed fingerprint of the body and a
 *    claim that expires. A repeat while the claim holds gets 409, on any instance; a repeat
 *    with another body gets 422; a repeat after a kept answer gets it replayed.
 * 2. Write: each create records what it made on the row in its own transaction, so the record
 *    and the mark commit together. No transaction spans the response selection.
 * 3. Finish: the answer is kept (below its size cap) and the claim released. A 5xx or 429 is not kept:
 *    if nothing was created the row goes and a retry runs afresh; if something was, its retry
 *    gets the answer rebuilt from the record (also for answers too large to keep, and after a
 *    crash between the write and the finish, once the claim has expired).
 */
export class IdempotencyKeys {
  constructor(private readonly settings: IdempotencySettings) {}

  async run(db: Gateway, request: IdempotentRequest, run: IdempotentRun): Promise<{ response: StoredResponse; replayed: boolean }> {
    const scope = stringify([request.principal.sub, request.principal.org, request.operation]);
    const claim = randomUUID();
    const row = { scope, key: request.key, claim };
    const outcome = await db.transaction((tx) => this.claim(tx, row, request.request));
    if (outcome.kept) return { response: outcome.kept, replayed: true };
    // A finished create whose answer was too large to keep: rebuilt for each replay, no claim,
    // and answered only when it is the first answer byte for byte (its digest was kept).
    if (outcome.created && outcome.finished) {
      const rebuilt = await run.rebuild(outcome.created);
      if (outcome.digest && digestOf(rebuilt.body) !== outcome.digest) {
        throw conflict(
          'The answer to this Idempotency-Key was too large to keep, and what the request wrote has changed since: read it instead of replaying.',
        );
      }
      return { response: rebuilt, replayed: true };
    }

    let response: StoredResponse;
    try {
      response = outcome.created
        ? await run.rebuild(outcome.created)
        : await run.execute({ recordCreated: (tx, created) => this.recordCreated(tx, row, created) });
    } catch (error) {
      await this.finish(db, row, null).catch(() => undefined);
      throw error;
    }
    await this.finish(db, row, run.keep(response) ? response : null);
    return { response, replayed: outcome.created !== null };
  }

  private async claim(
    tx: Transaction,
    row: { scope: string; key: string; claim: string },
    body: unknown,
  ): Promise<{ kept: StoredResponse | null; created: CreatedRecord | null; finished?: boolean; digest?: string | null }> {
    const { fingerprints, retentionSeconds, claimSeconds } = this.settings;
    // Twice at most: a row can vanish between the insert and the select (its run failed and
    // deleted it, or it expired and was cleaned up); the second insert then takes the key.
    for (let attempt = 0; ; attempt++) {
      const inserted = await tx.query<unknown>(
        `insert into idempotency_key (scope, key, fingerprint, claim, locked_until, expires_at)
         values (?, ?, ?, ?, now() + make_interval(secs => ?), now() + make_interval(secs => ?))
         on conflict (scope, key) do nothing returning 1`,
        [row.scope, row.key, fingerprints.of(body), row.claim, claimSeconds, retentionSeconds],
      );
      if (inserted.length > 0) return { kept: null, created: null };
      const [kept] = await tx.query<KeptRow>(
        `select fingerprint, status, content_type, body, codes, created, answer_digest as digest, locked_until is null as finished, locked_until > now() as locked,
           expires_at <= now() as expired
         from idempotency_key where scope = ? and key = ? for update`,
        [row.scope, row.key],
      );
      if (!kept && attempt === 0) continue;
      if (!kept) throw conflict('A request with this Idempotency-Key is still being processed; retry shortly.');
      if (kept.expired) {
        await tx.query(
          `update idempotency_key set fingerprint = ?, claim = ?, locked_until = now() + make_interval(secs => ?), created = null,
             status = null, content_type = null, body = null, created_at = now(), expires_at = now() + make_interval(secs => ?)
           where scope = ? and key = ?`,
          [fingerprints.of(body), row.claim, claimSeconds, retentionSeconds, row.scope, row.key],
        );
        return { kept: null, created: null };
      }
      // An empty fingerprint: a key kept before fingerprints were keyed (its plain hash erased).
      if (kept.fingerprint !== '' && !fingerprints.matches(body, kept.fingerprint)) {
        throw new ServiceError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request.');
      }
      if (kept.status !== null) {
        if (kept.content_type === null || kept.body === null) throw new Error('a kept answer without its content type or body');
        const response = { status: kept.status, contentType: kept.content_type, body: this.open(kept.body) };
        return { kept: kept.codes ? { ...response, codes: kept.codes } : response, created: null };
      }
      if (kept.finished && kept.created) return { kept: null, created: kept.created, finished: true, digest: kept.digest };
      if (kept.locked) throw conflict('A request with this Idempotency-Key is still being processed; retry shortly.');
      // An earlier run crashed, or its answer was too large to keep: take over the key.
      await tx.query('update idempotency_key set claim = ?, locked_until = now() + make_interval(secs => ?) where scope = ? and key = ?', [
        row.claim,
        claimSeconds,
        row.scope,
        row.key,
      ]);
      return { kept: null, created: kept.created };
    }
  }

  /** The answer compressed, then sealed: what the row keeps. */
  private seal(compressed: Buffer): string {
    const { ciphertext, keyId } = this.settings.cipher.seal(compressed, KEPT_BODY_COLUMN);
    return `${SEALED_BROTLI}${keyId}:${ciphertext}`;
  }

  /** A kept answer: compressed and sealed, sealed (kept before issue 37), or plain (before answers were sealed). */
  private open(body: string): string {
    if (body.startsWith(SEALED_BROTLI)) {
      const [keyId, ciphertext] = body.slice(SEALED_BROTLI.length).split(':');
      return brotliDecompressSync(this.settings.cipher.openBytes({ keyId, ciphertext }, KEPT_BODY_COLUMN)).toString('utf8');
    }
    if (!body.startsWith(SEALED)) return body;
    const [keyId, ciphertext] = body.slice(SEALED.length).split(':');
    return this.settings.cipher.open({ keyId, ciphertext }, KEPT_BODY_COLUMN);
  }

  private async recordCreated(tx: SqlClient, row: { scope: string; key: string; claim: string }, created: CreatedRecord): Promise<void> {
    const marked = await tx.query<unknown>(
      'update idempotency_key set created = ?::jsonb where scope = ? and key = ? and claim = ? returning 1',
      [JSON.stringify(created), row.scope, row.key, row.claim],
    );
    // Another request took the key over (this one outlived its claim): roll this write back.
    if (marked.length === 0) throw conflict('A request with this Idempotency-Key is still being processed; retry shortly.');
  }

  /** Keeps the answer and releases the claim; without an answer to keep, see the class comment. */
  private async finish(db: SqlClient, row: { scope: string; key: string; claim: string }, response: StoredResponse | null): Promise<void> {
    const where = 'scope = ? and key = ? and claim = ?';
    const params = [row.scope, row.key, row.claim];
    const compressed = response ? compress(response.body) : null;
    if (response && compressed && compressed.length <= this.settings.keptResponseMaxBytes) {
      await db.query(`update idempotency_key set status = ?, content_type = ?, body = ?, codes = ?, locked_until = null where ${where}`, [
        response.status,
        response.contentType,
        this.seal(compressed),
        response.codes ?? null,
        ...params,
      ]);
      return;
    }
    // Too large even compressed: its digest, so that a rebuilt replay is answered only when it is the same.
    await db.query(`update idempotency_key set locked_until = null, answer_digest = ? where ${where} and created is not null`, [
      response ? digestOf(response.body) : null,
      ...params,
    ]);
    await db.query(`delete from idempotency_key where ${where} and created is null`, params);
  }
}

/** Removes keys past their retention; any instance may run it. */
export async function deleteExpiredKeys(db: SqlClient): Promise<number> {
  const rows = await db.query<unknown>('delete from idempotency_key where expires_at <= now() returning 1');
  return rows.length;
}

/**
 * Brotli at quality 5: a lifecycle answer on a 1,000-charge ledger (about 270 KB of JSON, the
 * same keys and dates on every charge, the uuids random) takes a few milliseconds and keeps to
 * well under the 64 KB cap (docs/decisions.md, "Replays answer what the first request answered").
 */
function compress(body: string): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  return brotliCompressSync(bytes, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: 5,
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
    },
  });
}

function digestOf(body: string): string {
  return createHash('sha256').update(body).digest('base64');
}
