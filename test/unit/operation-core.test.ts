import { performance } from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import type { RequestAuthentication } from '../../src/auth/authenticate.js';
import { graphqlAnswer, jsonAnswer, REST, type Surface } from '../../src/errors/answer.js';
import { conflict, notFound } from '../../src/errors/errors.js';
import type { ContextFactory, RequestContext } from '../../src/graphql/context.js';
import type { IdempotencyKeys } from '../../src/idempotency/idempotency.js';
import { Deadline } from '../../src/limits/deadline.js';
import { RateLimits } from '../../src/limits/rate-limits.js';
import { OperationCore, type OperationRequest } from '../../src/operations/operation-core.js';

/**
 * The operation core without a host, a database or a socket (issue 26): what any operation's
 * answer is, whatever the host, is decided here, so it is tested here.
 */
const GRAPHQL: Surface = { kind: 'graphql', mediaType: 'application/graphql-response+json' };
const principal = { sub: 'core-test', org: null } as const;
const authentication = { principal, failure: null, tokenSent: true } as unknown as RequestAuthentication;

function core(options: { deadlineSeconds?: number; responseMaxBytes?: number; graphqlCostPerMinute?: number } = {}) {
  const logged: unknown[] = [];
  const logger = { error: (...args: unknown[]) => logged.push(args), warn: () => undefined };
  // The context as the factory makes it, with what the core itself touches.
  const createContext = ((facts) =>
    ({
      requestId: facts.requestId,
      principal: facts.authentication.principal,
      authentication: facts.authentication,
      deadline: new Deadline(options.deadlineSeconds ?? 10, facts.startedAt),
      logger,
      spend: facts.spend,
      operation: facts.operation ?? {},
    }) as unknown as RequestContext) as ContextFactory;
  const limits = new RateLimits(
    {
      requestsPerMinute: 0,
      createsPerMinute: 0,
      graphqlCostPerMinute: options.graphqlCostPerMinute ?? 0,
      anonymousPerMinute: 0,
      windowSeconds: 60,
      concurrentRequests: 0,
    } as never,
    {} as never,
    logger as never,
  );
  const operations = new OperationCore({
    createContext,
    limits,
    idempotency: {} as IdempotencyKeys,
    // A write's Consistency-Token: the WAL position the primary is at.
    database: { query: () => Promise.resolve([{ lsn: '0/16B3748' }]) } as never,
    replicas: { wrote: () => undefined } as never,
    responseMaxBytes: options.responseMaxBytes ?? 1_000_000,
    maxCost: 5000,
  });
  return { operations, logged };
}

const request = (surface: Surface, extra: Partial<OperationRequest> = {}): OperationRequest => ({
  surface,
  requestId: 'req-1',
  startedAt: performance.now(),
  authentication,
  ...extra,
});

describe('the operation core', () => {
  it('answers an error as its surface does: one problem on REST, { errors } on /graphql, the codes as data', async () => {
    const { operations } = core();
    const rest = await operations.run(request(REST), () => Promise.reject(conflict('taken')));
    expect(rest).toMatchObject({ status: 409, contentType: 'application/problem+json', codes: ['CONFLICT'] });
    expect(JSON.parse(rest.body)).toMatchObject({ status: 409, code: 'CONFLICT', detail: 'taken' });

    const graphql = await operations.run(request(GRAPHQL), () => Promise.reject(conflict('taken')));
    expect(graphql).toMatchObject({ status: 409, contentType: GRAPHQL.mediaType, codes: ['CONFLICT'] });
    expect(JSON.parse(graphql.body)).toEqual({ errors: [{ message: 'taken', extensions: { code: 'CONFLICT' } }] });
  });

  it('logs an unexpected error once and answers a bare 500 that carries the request id', async () => {
    const { operations, logged } = core();
    const answer = await operations.run(request(REST), () => Promise.reject(new Error('secret detail')));
    expect(answer.status).toBe(500);
    expect(answer.body).not.toContain('secret detail');
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', requestId: 'req-1' });
    expect(logged).toHaveLength(1);
  });

  it('answers 503 with Retry-After when the deadline passes first, and holds the slot until the work settles', async () => {
    const { operations } = core({ deadlineSeconds: 0.05 });
    let finish: (value: unknown) => void = () => undefined;
    const holdSlot = vi.fn<(work: Promise<unknown>) => void>();
    const answer = await operations.run(request(REST, { holdSlot }), () =>
      new Promise((resolve) => (finish = resolve)).then(() => jsonAnswer({})),
    );
    expect(answer).toMatchObject({ status: 503, codes: ['UNAVAILABLE'], headers: { 'retry-after': '5' } });
    const held = holdSlot.mock.calls[0][0];
    let settled = false;
    void held.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    finish(null);
    await held;
    expect(settled).toBe(true);
  });

  it('does not start work whose request waited past its deadline', async () => {
    const { operations } = core({ deadlineSeconds: 1 });
    const work = vi.fn(() => Promise.resolve(jsonAnswer({})));
    const answer = await operations.run(request(GRAPHQL, { startedAt: performance.now() - 2000 }), work);
    expect(work).not.toHaveBeenCalled();
    expect(answer.status).toBe(503);
  });

  it('refuses an answer over the response cap, counting bytes, not characters', async () => {
    const { operations } = core({ responseMaxBytes: 100 });
    // 40 characters, 120 bytes in UTF-8.
    const answer = await operations.run(request(REST), () => Promise.resolve(jsonAnswer('€'.repeat(40))));
    expect(answer).toMatchObject({ status: 400, codes: ['BAD_USER_INPUT'] });
    const small = await operations.run(request(REST), () => Promise.resolve(jsonAnswer('€'.repeat(20))));
    expect(small.status).toBe(200);
  });

  it("adds the budgets' RateLimit fields to the answer, charging GraphQL cost on /graphql only", async () => {
    const { operations } = core({ graphqlCostPerMinute: 100 });
    const spend = (context: RequestContext) => context.spend.graphqlCost(10).then(() => jsonAnswer({}));
    const graphql = await operations.run(request(GRAPHQL), spend);
    expect(graphql.headers).toEqual({
      'RateLimit-Policy': ['"graphql-cost";q=100;qu="cost-points";w=60'],
      RateLimit: ['"graphql-cost";r=90;t=60'],
    });
    const rest = await operations.run(request(REST), spend);
    expect(rest.headers).toEqual({});
  });

  it('keeps a field error beside the data on /graphql: NOT_FOUND answers 200', async () => {
    const { operations } = core();
    const answer = await operations.run(request(GRAPHQL), async (context) =>
      graphqlAnswer({ data: { policy: null }, errors: [notFound()] }, 'application/graphql-response+json', context),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      errors: [{ message: 'Not found.', extensions: { code: 'NOT_FOUND' } }],
      data: { policy: null },
    });
  });
});
