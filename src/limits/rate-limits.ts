import type { Logger } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CallerLimits } from '../config.js';
import type { SqlClient } from '../database/database.js';
import { performance } from 'node:perf_hooks';
import { rateLimited, unavailable, type ServiceError } from '../errors/errors.js';
import { isDatabaseUnavailable } from '../errors/safe-errors.js';
import { FairAdmission } from './fair-admission.js';

/** The policies of spec section 12, by the names the RateLimit header fields use. */
type Policy = 'requests' | 'anonymous' | 'creates' | 'graphql-cost' | 'concurrency';

/**
 * A refusal is answered after this pause (never later than its Retry-After). A client retrying
 * in a tight loop is slowed to one attempt a second per connection, so its refusals cannot
 * take the instance's CPU from other callers; a client that honours Retry-After never notices.
 */
const REFUSAL_DELAY_MS = 1000;

/** Requests a caller runs at once while another caller is served too (fair-admission.ts). */
const FAIR_SHARE = 4;

/** A RateLimit-Policy or RateLimit item (IETF draft 11): appended to the answer, in order, one per budget counted. */
export type RateLimitField = readonly [name: 'RateLimit-Policy' | 'RateLimit', value: string];

/**
 * What counting a request against a budget decided, as a value (the host sends it: the gate
 * before a route, the operation core with its answer): the budget's RateLimit fields, and the
 * 429 to answer when it is over (decided after a pause; see REFUSAL_DELAY_MS).
 */
export interface RateLimitDecision {
  fields: readonly RateLimitField[];
  refusal: ServiceError | null;
}

/** Nothing counted: no fields, no refusal. */
const UNCOUNTED: RateLimitDecision = { fields: [], refusal: null };

/**
 * One request's place among its caller's requests in flight (RateLimits.inFlight). The host
 * asks for it once (`take`): `start` is called when the request may run, now or after waiting its
 * turn, and `answer` instead with its refusal (429 over the limit, after the pause; 503 when it
 * waited past its deadline); false when refused at once. Then the host holds it for the work the
 * request starts (`hold`) and says when the answer has gone (`answered`).
 */
export interface InFlightPlace {
  hold(work: Promise<unknown>): void;
  take(start: () => void, answer: (decision: RateLimitDecision) => void): boolean;
  /** The answer has gone, with the bytes written for it (the caller's share follows its answers' size). */
  answered(bytes: number): void;
}

interface Budget {
  policy: Policy;
  limiter: RateLimiterAbstract;
  /** The policy as a RateLimit-Policy item, e.g. `"requests";q=6000;w=60`. */
  item: string;
}

/**
 * Per-caller limits (spec section 12), with rate-limiter-flexible:
 * - requests a minute per `sub` and unauthenticated requests per client address, and GraphQL
 *   cost points per `sub`: counted in this instance's memory, which costs a map update per
 *   request (docs/decisions.md says how to set them for N instances);
 * - creates per `sub`: counted in PostgreSQL (table `rate_limit`), so N instances share one
 *   count and a caller cannot multiply its creates by spreading them;
 * - requests in flight per `sub` on this instance, run fairly when several callers are served.
 * Counting is in fixed windows of `windowSeconds`, each allowing per-minute x window / 60.
 * Every answer to a counted caller carries `RateLimit-Policy` and `RateLimit` (IETF draft 11);
 * over a limit the answer is 429 `RATE_LIMITED` with `Retry-After`.
 */
export class RateLimits {
  private readonly requests: Budget | null;
  private readonly anonymous: Budget | null;
  private readonly creates: Budget | null;
  private readonly graphqlCost: Budget | null;
  private readonly admission: FairAdmission | null;
  private readonly concurrencyItem: string;

  constructor(
    private readonly config: CallerLimits,
    /** Where the creates are counted: the service's database (its gateway, so statements are traced and logged as any). */
    store: SqlClient,
    private readonly logger: Logger,
    /** Told of every refusal, with the policy that refused (the metrics count them). */
    private readonly refused: (policy: Policy) => void = () => undefined,
  ) {
    const window = config.windowSeconds;
    const budget = (policy: Policy, perMinute: number, make: (points: number) => RateLimiterAbstract, unit = '') => {
      if (perMinute === 0) return null;
      const points = Math.max(1, Math.round((perMinute * window) / 60));
      return { policy, limiter: make(points), item: `"${policy}";q=${points}${unit};w=${window}` };
    };
    const memory = (prefix: string) => (points: number) => new RateLimiterMemory({ keyPrefix: prefix, points, duration: window });
    this.requests = budget('requests', config.requestsPerMinute, memory('requests'));
    this.anonymous = budget('anonymous', config.anonymousPerMinute, memory('anonymous'));
    this.graphqlCost = budget('graphql-cost', config.graphqlCostPerMinute, memory('cost'), ';qu="cost-points"');
    this.creates = budget(
      'creates',
      config.createsPerMinute,
      (points) =>
        new RateLimiterPostgres({
          // The library sends `{ name, text, values }` to a client's `query` (its 'client' store
          // type); the gateway sends them on the service's pool.
          storeClient: { query: ({ name, text, values }: RateLimiterStatement) => store.executeSql(text, values, name) },
          storeType: 'client',
          tableName: 'rate_limit',
          // The table comes from a migration; the library must not create one of its own.
          tableCreated: true,
          keyPrefix: 'creates',
          points,
          duration: window,
        }),
    );
    this.concurrencyItem = `"concurrency";q=${config.concurrentRequests};qu="concurrent-requests"`;
    this.admission =
      config.concurrentRequests > 0 ? new FairAdmission(config.concurrentRequests, Math.min(FAIR_SHARE, config.concurrentRequests)) : null;
  }

  /**
   * Counts a request against its caller's requests budget: its principal's `sub`, or without a
   * principal (`sub` null) its address (`clientAddress`). Undefined when no budget counts this
   * caller (its limit is 0).
   */
  countRequest(sub: string | null, address: string | undefined): Promise<RateLimitDecision> | undefined {
    const budget = sub !== null ? this.requests : this.anonymous;
    return budget ? this.spend(budget, sub ?? clientAddress(address), 1) : undefined;
  }

  /**
   * A request's place among its caller's requests in flight, waiting its turn while other
   * callers are served (fair-admission.ts); null when that limit is off. Over the limit the
   * answer is a 429. The place is held until the answer has gone (`answered`) *and* the work it
   * started has settled (`hold`), so that a request answered at its deadline keeps counting
   * while its statements still run; a request that waits past its deadline is answered 503 unrun.
   */
  inFlight(sub: string, startedAt: number): InFlightPlace | null {
    const { admission } = this;
    if (!admission) return null;
    let release: ((answerBytes?: number) => void) | undefined;
    let answered = false;
    let answerBytes = 0;
    let held = 0;
    const releaseWhenDone = () => {
      if (answered && held === 0 && release) {
        release(answerBytes);
        release = undefined;
      }
    };
    const settled = () => {
      held--;
      releaseWhenDone();
    };
    return {
      hold: (work) => {
        held++;
        work.then(settled, settled);
      },
      take: (start, answer) => {
        let waitTimer: NodeJS.Timeout | undefined;
        const admitted = admission.admit(sub, () => {
          clearTimeout(waitTimer);
          start();
        });
        if (admitted.refused) {
          this.refused('concurrency');
          const refusal = rateLimited('concurrency', 1, `at most ${this.config.concurrentRequests} requests in flight`);
          const fields: RateLimitField[] = [
            ['RateLimit-Policy', this.concurrencyItem],
            ['RateLimit', '"concurrency";r=0'],
          ];
          void sleep(REFUSAL_DELAY_MS).then(() => answer({ fields, refusal }));
          return false;
        }
        release = admitted.finished;
        if (!admitted.started) {
          // Waiting counts toward the deadline: past it, the request is answered without running.
          const left = this.config.requestDeadlineSeconds * 1000 - (performance.now() - startedAt);
          waitTimer = setTimeout(
            () => {
              release?.();
              release = undefined;
              const refusal = unavailable(`The request did not finish within ${this.config.requestDeadlineSeconds} s; retry shortly.`);
              answer({ fields: [], refusal });
            },
            Math.max(0, left),
          );
        }
        return true;
      },
      answered: (bytes) => {
        answered = true;
        answerBytes = bytes;
        releaseWhenDone();
      },
    };
  }

  /** Charges a `sub` for writes (every mutation, as its field declares: graphql/write.ts); refused (429) when over. */
  spendCreates(sub: string, count: number): Promise<RateLimitDecision> {
    return this.creates && count > 0 ? this.spend(this.creates, sub, count) : Promise.resolve(UNCOUNTED);
  }

  /** Charges a `sub` a GraphQL operation's computed cost; refused (429) when over. */
  spendGraphqlCost(sub: string, cost: number): Promise<RateLimitDecision> {
    return this.graphqlCost && cost > 0 ? this.spend(this.graphqlCost, sub, cost) : Promise.resolve(UNCOUNTED);
  }

  private spend(budget: Budget, key: string, points: number): Promise<RateLimitDecision> {
    return budget.limiter.consume(key, points).then(
      (result) => ({ fields: fieldsOf(budget, result), refusal: null }),
      async (outcome: unknown) => {
        if (!(outcome instanceof RateLimiterRes)) {
          // The count could not be kept (the database is away): the request itself will meet the
          // same database, so it is let through rather than refused for the limiter's sake. Its
          // 503 is the outage log's to count (errors/outage-log.ts); only another failure is told here.
          if (!isDatabaseUnavailable(outcome)) this.logger.warn({ err: outcome, policy: budget.policy }, 'rate limit store unavailable');
          return UNCOUNTED;
        }
        const fields = fieldsOf(budget, outcome);
        this.refused(budget.policy);
        // Paused for a second, or less if the window resets sooner; Retry-After counts what is left.
        const pause = Math.min(REFUSAL_DELAY_MS, outcome.msBeforeNext);
        await sleep(pause);
        // Request-level on `/graphql` too: a refused operation never runs, and answers HTTP 429.
        const retryAfter = Math.max(1, Math.ceil((outcome.msBeforeNext - pause) / 1000));
        return { fields, refusal: rateLimited(budget.policy, retryAfter, describe(budget)) };
      },
    );
  }
}

/** A statement of rate-limiter-flexible's Postgres store, positional (`$1`) and named. */
interface RateLimiterStatement {
  name?: string;
  text: string;
  values?: unknown[];
}

/** This policy's items of the answer's RateLimit-Policy and RateLimit lists. */
function fieldsOf(budget: Budget, result: RateLimiterRes): RateLimitField[] {
  const seconds = Math.max(0, Math.ceil(result.msBeforeNext / 1000));
  return [
    ['RateLimit-Policy', budget.item],
    ['RateLimit', `"${budget.policy}";r=${result.remainingPoints};t=${seconds}`],
  ];
}

function describe(budget: Budget): string {
  const match = /q=(\d+).*;w=(\d+)/.exec(budget.item);
  if (!match) return budget.item;
  const [, points, window] = match;
  const unit = budget.policy === 'graphql-cost' ? 'cost points' : budget.policy === 'creates' ? 'creates' : 'requests';
  return `at most ${points} ${unit} per ${window} s`;
}

/**
 * The key an unauthenticated caller is counted under: its IPv4 address, or the /64 network of
 * its IPv6 address (one subscriber usually holds a whole /64 and could rotate through it).
 */
export function clientAddress(ip: string | undefined): string {
  if (!ip) return 'unknown';
  if (ip.startsWith('::ffff:') && ip.includes('.')) return ip.slice(7);
  if (!ip.includes(':')) return ip;
  const [head, tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || '0', 16).toString(16))
    .join(':')}::/64`;
}
