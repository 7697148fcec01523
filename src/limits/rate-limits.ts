import type { NextFunction, Request, Response } from 'express';
import type { Knex } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { CallerLimits } from '../config.js';
import { rateLimited } from '../graphql/errors.js';
import type { RequestAuthentication } from '../auth/authentication-gate.js';
import { sendError } from '../http-errors.js';
import { FairAdmission } from './fair-admission.js';

/** The policies of contract section 12, by the names the RateLimit header fields use. */
type Policy = 'requests' | 'anonymous' | 'creates' | 'graphql-cost' | 'concurrency';

/**
 * A refusal is answered after this pause (never later than its Retry-After). A client retrying
 * in a tight loop is slowed to one attempt a second per connection, so its refusals cannot
 * take the instance's CPU from other callers; a client that honours Retry-After never notices.
 */
const REFUSAL_DELAY_MS = 1000;

/** Requests a caller runs at once while another caller is served too (fair-admission.ts). */
const FAIR_SHARE = 4;

interface Budget {
  policy: Policy;
  limiter: RateLimiterAbstract;
  /** The policy as a RateLimit-Policy item, e.g. `"requests";q=6000;w=60`. */
  item: string;
}

/**
 * Per-caller limits (contract section 12), with rate-limiter-flexible:
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
    knex: Knex,
    private readonly logger: Logger,
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
          storeClient: knex,
          storeType: 'knex',
          tableName: 'rate_limit',
          // The table comes from a migration; the library must not create one of its own.
          tableCreated: true,
          keyPrefix: 'creates',
          points,
          duration: window,
        }),
    );
    this.concurrencyItem = `"concurrency";q=${config.concurrentRequests};qu="concurrent-requests"`;
    this.admission = config.concurrentRequests > 0 ? new FairAdmission(config.concurrentRequests, Math.min(FAIR_SHARE, config.concurrentRequests)) : null;
  }

  /**
   * Express middleware after the authentication gate: counts the request against its `sub`
   * (or its address), then takes a place among the caller's requests in flight until the answer
   * is sent, waiting its turn while other callers are served (fair-admission.ts). Over either
   * limit the answer is a 429.
   */
  middleware() {
    return (req: Request, res: Response, next: NextFunction): void => {
      const { principal } = res.locals.authentication as RequestAuthentication;
      const budget = principal ? this.requests : this.anonymous;
      const key = principal ? principal.sub : (req.ip ?? 'unknown');
      const admit = () => {
        if (!principal || !this.admission) return next();
        const admitted = this.admission.admit(key, () => next());
        if (!admitted.refused) return void res.once('close', admitted.finished);
        res.setHeader('RateLimit-Policy', this.concurrencyItem);
        res.setHeader('RateLimit', '"concurrency";r=0');
        const refusal = rateLimited('concurrency', 1, `at most ${this.config.concurrentRequests} requests in flight`);
        void sleep(REFUSAL_DELAY_MS).then(() => sendError(req, res, refusal));
      };
      if (!budget) return admit();
      this.spend(budget, key, 1, res).then(admit, (error) => sendError(req, res, error));
    };
  }

  /** Charges a `sub` for creates (REST POSTs, GraphQL create mutations); throws 429 when over. */
  spendCreates(sub: string, count: number, res: Response): Promise<void> {
    return this.creates && count > 0 ? this.spend(this.creates, sub, count, res) : Promise.resolve();
  }

  /** Charges a `sub` a GraphQL operation's computed cost; throws 429 when over. */
  spendGraphqlCost(sub: string, cost: number, res: Response): Promise<void> {
    return this.graphqlCost && cost > 0 ? this.spend(this.graphqlCost, sub, cost, res) : Promise.resolve();
  }

  private async spend(budget: Budget, key: string, points: number, res: Response): Promise<void> {
    let result: RateLimiterRes;
    try {
      result = await budget.limiter.consume(key, points);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) {
        // The count could not be kept (the database is away): the request itself will meet the
        // same database, so it is let through rather than refused for the limiter's sake.
        this.logger.warn({ err: outcome, policy: budget.policy }, 'rate limit store unavailable');
        return;
      }
      result = outcome;
      report(res, budget, result);
      const retryAfterMs = Math.max(1000, result.msBeforeNext);
      await sleep(Math.min(REFUSAL_DELAY_MS, retryAfterMs));
      throw rateLimited(budget.policy, Math.ceil((retryAfterMs - Math.min(REFUSAL_DELAY_MS, retryAfterMs)) / 1000) || 1, describe(budget));
    }
    report(res, budget, result);
  }
}

/** Appends this policy to the answer's RateLimit-Policy and RateLimit lists. */
function report(res: Response, budget: Budget, result: RateLimiterRes): void {
  if (res.headersSent) return;
  const seconds = Math.max(0, Math.ceil(result.msBeforeNext / 1000));
  res.append('RateLimit-Policy', budget.item);
  res.append('RateLimit', `"${budget.policy}";r=${result.remainingPoints};t=${seconds}`);
}

function describe(budget: Budget): string {
  const [, points, window] = /q=(\d+).*;w=(\d+)/.exec(budget.item)!;
  const unit = budget.policy === 'graphql-cost' ? 'cost points' : budget.policy === 'creates' ? 'creates' : 'requests';
  return `at most ${points} ${unit} per ${window} s`;
}
