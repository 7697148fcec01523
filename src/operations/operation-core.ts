import type { RequestAuthentication } from '../auth/authenticate.js';
import { errorAnswer, type Answer, type Surface } from '../errors/answer.js';
import { badUserInput, responseTooLarge } from '../errors/errors.js';
import type { Database } from '../database/database.js';
import { parseLsn, type ReadReplicas } from '../database/replicas.js';
import { WalPosition } from '../database/wal-position.js';
import { asGraphQLError } from '../errors/safe-errors.js';
import { callerOf, type ContextFactory, type RequestClient, type RequestContext } from '../graphql/context.js';
import { answerMeter } from '../graphql/cost-meter.js';
import { assertIdempotencyKey, type CreatedRecord, type IdempotencyKeys } from '../idempotency/idempotency.js';
import type { RateLimitDecision, RateLimitField, RateLimits } from '../limits/rate-limits.js';
import type { OperationOutcome } from '../observability/metrics.js';
import { recordReads } from './read-entries.js';

export interface OperationCoreSettings {
  createContext: ContextFactory;
  /** The primary: Idempotency-Key claims, and the Consistency-Token of each write. */
  database: Database;
  replicas: ReadReplicas;
  limits: RateLimits;
  idempotency: IdempotencyKeys;
  /** RESPONSE_MAX_BYTES: a larger answer is refused (spec section 12). */
  responseMaxBytes: number;
  /** GRAPHQL_MAX_COST: what one operation's answer may cost, REST documents' too (graphql/cost-meter.ts). */
  maxCost: number;
}

/** What the host knows of a request before its operation runs: nothing of Express in it. */
export interface OperationRequest {
  surface: Surface;
  requestId: string;
  /** The client's address and User-Agent, for the audit log (contract section 21). */
  client?: RequestClient;
  /** When the request arrived (performance.now()): its deadline counts from then. */
  startedAt: number;
  authentication: RequestAuthentication;
  /** Holds the caller's in-flight slot until the work settles (limits/rate-limits.ts). */
  holdSlot?: (work: Promise<unknown>) => void;
  /** Where the operation's name and type are written for the access line (`/graphql`). */
  operation?: OperationOutcome;
  /**
   * Whether the operation writes (REST: every method but GET); for `/graphql` it is known once
   * the document is (a mutation), from `operation`.
   */
  write?: boolean;
  /** The request's Consistency-Token header, as sent. */
  consistencyToken?: string;
}

/** An idempotent request, once its checks have passed: what the key is scoped to, and how to run or rebuild it. */
export interface IdempotentRun {
  /** Besides the caller: the route or mutation (and the record its path names), e.g. `POST /api/v1/policy`. */
  operation: string;
  /** What the request asked for: the same key with another request is refused (422). */
  request: unknown;
  execute(): Promise<Answer>;
  /** The answer of a create that already happened, read back from the record it made. */
  rebuild(created: CreatedRecord): Promise<Answer>;
  /**
   * Its success shows a secret once (an API key): never kept, not even sealed, so a retry of
   * one that happened gets what `rebuild` says instead (contract section 20).
   */
  showsSecretOnce?: boolean;
}

/** Codes of a refusal before anything ran: its corrected retry must run, so it is not kept. */
const REFUSED_UNRUN = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST']);

/**
 * The operation core beneath REST and `/graphql` (issue 26): whatever the host and the
 * document, an operation runs here with its request context, under its deadline (503 when it
 * passes, the work still holding the caller's slot), within the response cap, charged to the
 * caller's budgets, once per Idempotency-Key, and every failure becomes the surface's error
 * answer (errors/answer.ts). It returns an Answer value; the host writes it.
 */
export class OperationCore {
  private readonly walPosition: WalPosition;

  constructor(private readonly settings: OperationCoreSettings) {
    this.walPosition = new WalPosition(settings.database);
  }

  async run(request: OperationRequest, work: (context: RequestContext) => Promise<Answer>): Promise<Answer> {
    const { limits, responseMaxBytes } = this.settings;
    const sub = request.authentication.principal?.sub;
    const token = request.consistencyToken === undefined ? undefined : parseLsn(request.consistencyToken.trim());
    if (token === null) {
      return errorAnswer(
        request.surface,
        [badUserInput([{ path: 'Consistency-Token', message: 'must be the Consistency-Token header of a write answer, e.g. 0/16B3748' }])],
        request,
      );
    }
    // Contract section 17: a token ahead of the primary came from no write; honoured, it would only
    // keep the caller's reads off the replicas (security review 3, Info). A token at or behind a
    // position this instance has read costs no statement (WalPosition.reached).
    if (token !== undefined && (await this.walPosition.reached(token)) === false) {
      return errorAnswer(
        request.surface,
        [
          badUserInput([
            {
              path: 'Consistency-Token',
              message:
                "is ahead of the primary's WAL position, so it is not from a write answer: send back the Consistency-Token a write answered",
            },
          ]),
        ],
        request,
      );
    }
    // The budgets' RateLimit fields go out with the answer, a refusal's too.
    const reported: RateLimitField[] = [];
    const charge = (spent: Promise<RateLimitDecision>) =>
      spent.then(({ fields, refusal }) => {
        reported.push(...fields);
        if (refusal) throw refusal;
      });
    const context = this.settings.createContext({
      requestId: request.requestId,
      client: request.client,
      startedAt: request.startedAt,
      authentication: request.authentication,
      operation: request.operation,
      consistencyToken: token,
      spend: {
        // REST's documents are the service's own: only `/graphql` operations are charged their cost.
        graphqlCost: (cost) => (sub && request.surface.kind === 'graphql' ? charge(limits.spendGraphqlCost(sub, cost)) : Promise.resolve()),
        creates: (count) => (sub ? charge(limits.spendCreates(sub, count)) : Promise.resolve()),
      },
    });
    // Every answer pays for what it returns (contract section 14): a REST document's lists stop
    // early at the limit; `/graphql`'s checks count a document's static cost first (operation-checks.ts).
    context.cost = answerMeter(this.settings.maxCost);
    // A REST read's statements may go to a replica (contract section 17); `/graphql` says so once its document is known (operation-checks.ts).
    if (request.write === false) context.readsOnly();
    const failed = (error: unknown) => errorAnswer(request.surface, [asGraphQLError(error)], context);
    // A request that waited its turn past its deadline is answered without being run.
    const job = context.deadline.expired ? Promise.resolve(failed(context.deadline.error())) : work(context).catch(failed);
    // The caller's place in flight is held until the work settles, even if the answer goes first.
    request.holdSlot?.(job);
    let answer = await context.deadline.race(job, () => failed(context.deadline.error()));
    // AUDIT_READS: what the request returned is recorded before it is answered; a read whose
    // entry cannot be written is not served. Without it there is no collector and nothing runs.
    if (context.readAudit && !context.readAudit.empty) {
      answer = await recordReads(this.settings.database, context, context.readAudit).then(
        () => answer,
        (error: unknown) => failed(error),
      );
    }
    // A UTF-16 length a third of the cap cannot make more bytes than the cap: most answers skip the count.
    if (answer.body.length * 3 > responseMaxBytes && Buffer.byteLength(answer.body) > responseMaxBytes) {
      context.logger.warn({ bytes: Buffer.byteLength(answer.body) }, 'response over RESPONSE_MAX_BYTES refused');
      answer = failed(responseTooLarge(responseMaxBytes));
    }
    if (request.write ?? context.operation.operationType === 'mutation') {
      if (answer.status < 400) answer = await this.written(answer, sub);
      // A refused write may still have committed part of its work (a document's other mutation, an
      // answer over the cap or past the deadline): the caller's reads stay on the primary, at no statement's cost.
      else if (sub !== undefined) await this.settings.replicas.wrote(sub);
    }
    return reported.length === 0 ? answer : withReported(answer, reported);
  }

  /**
   * A write's answer carries the primary's WAL position after its commit (contract section 17):
   * sent back as Consistency-Token, a read sees at least this write. The caller's reads stay on
   * the primary for DATABASE_REPLICA_STICKY_SECONDS too, for the clients that do not send it.
   */
  private async written(answer: Answer, sub: string | undefined): Promise<Answer> {
    const [lsn] = await Promise.all([this.walPosition.afterCommit(), sub === undefined ? undefined : this.settings.replicas.wrote(sub)]);
    return lsn === null ? answer : { ...answer, headers: { ...answer.headers, 'Consistency-Token': lsn } };
  }

  /**
   * A request with an Idempotency-Key (spec section 7): replayed, rebuilt from its record, or run
   * once. As at Stripe, a request whose checks fail (`prepare` throws) is answered before the
   * key is claimed: nothing started, nothing is kept, and the key still works once it is fixed.
   * Kept for replays: every answer below 500 but a 429 or a refusal before anything ran.
   */
  async idempotently(context: RequestContext, key: string, prepare: () => Promise<IdempotentRun>): Promise<Answer> {
    assertIdempotencyKey(key);
    const run = await prepare();
    const { response, replayed } = await this.settings.idempotency.run(
      this.settings.database,
      { principal: callerOf(context), operation: run.operation, key, request: run.request },
      {
        execute: (recorder) => {
          context.idempotency = recorder;
          return run.execute();
        },
        rebuild: (created) => run.rebuild(created),
        keep: (answer) =>
          answer.status < 500 &&
          answer.status !== 429 &&
          !(run.showsSecretOnce && answer.status < 400) &&
          !answer.codes?.some((code) => REFUSED_UNRUN.has(code)),
      },
    );
    const headers = 'headers' in response ? (response as Answer).headers : {};
    return { ...response, headers: replayed ? { ...headers, 'Idempotent-Replayed': 'true' } : headers };
  }
}

/** The answer with the budgets' RateLimit-Policy and RateLimit fields added to its own. */
function withReported(answer: Answer, reported: readonly RateLimitField[]): Answer {
  const headers: Record<string, string | readonly string[]> = { ...answer.headers };
  for (const [name, value] of reported) {
    const present = headers[name];
    headers[name] = present === undefined ? [value] : [...(typeof present === 'string' ? [present] : present), value];
  }
  return { ...answer, headers };
}
