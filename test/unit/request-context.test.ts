import { performance } from 'node:perf_hooks';
import { describe, expect, it, vi } from 'vitest';
import type { Batch } from '../../src/graphql/batch.js';
import { createContextFactory } from '../../src/graphql/context.js';
import { loadConfig } from '../../src/config.js';

/** The policy rules as the settings' defaults give them: the context only passes them on. */
const DEFAULT_POLICY_RULES = loadConfig({}).policyRules;

/**
 * Apollo Server copies each request's context (`Object.assign(Object.create(prototype), context)`
 * in ApolloServer.js): the copy must not make the batch loaders or the child logger, which a
 * simple read never needs. The database is the process's gateway, the same for every request.
 */
describe('the request context', () => {
  it('makes its loaders and logger on first use, not when Apollo copies it', async () => {
    const database = { gateway: true };
    const child = vi.fn(() => ({ child: true }));
    const createContext = createContextFactory({
      database: database as never,
      replicas: { reader: () => ({ replica: true }) } as never,
      cipher: {} as never,
      apiKeyHashes: {} as never,
      webhookUrls: { publicOnly: false },
      quoteValidDays: 30,
      policyRules: DEFAULT_POLICY_RULES,
      logger: { child } as never,
      outage: {} as never,
      deadlineSeconds: 10,
    });
    const context = createContext({
      requestId: 'r1',
      authentication: { principal: { sub: 'alice', org: null }, failure: null, tokenSent: true },
      spend: { graphqlCost: async () => undefined, creates: async () => undefined },
    });
    const copy = Object.assign(Object.create(Object.getPrototypeOf(context)), context) as typeof context;
    expect(child).not.toHaveBeenCalled();
    expect(copy.principal).toEqual({ sub: 'alice', org: null });
    expect(copy.db).toBe(database);
    // A read operation's statements go where the replicas say, on the copy Apollo runs resolvers with.
    copy.readsOnly();
    expect(copy.db).toEqual({ replica: true });
    expect(context.db).toBe(database);
    // A feature's batch (graphql/batch.ts): the loads of one tick are one read, on the copy's gateway.
    const upper: Batch<string, string> = { read: vi.fn(async (keys: readonly string[]) => keys.map((key) => key.toUpperCase())) };
    expect(await Promise.all([copy.load(upper, 'a'), copy.load(upper, 'b'), copy.load(upper, 'a')])).toEqual(['A', 'B', 'A']);
    expect(upper.read).toHaveBeenCalledTimes(1);
    expect(upper.read).toHaveBeenCalledWith(['a', 'b'], expect.objectContaining({ db: { replica: true } }));
    expect(copy.logger).toEqual({ child: true });
    expect(child).toHaveBeenCalledWith({ requestId: 'r1', sub: 'alice' });
    expect(child).toHaveBeenCalledTimes(1);
  });
});

describe('batches (graphql/batch.ts)', () => {
  it('start no statement once the deadline has passed: the loads get its 503', async () => {
    const createContext = createContextFactory({
      database: {} as never,
      replicas: {} as never,
      cipher: {} as never,
      apiKeyHashes: {} as never,
      webhookUrls: { publicOnly: false },
      quoteValidDays: 30,
      policyRules: DEFAULT_POLICY_RULES,
      logger: {} as never,
      outage: {} as never,
      deadlineSeconds: 1,
    });
    const context = createContext({
      requestId: 'r2',
      startedAt: performance.now() - 2000,
      authentication: { principal: { sub: 'alice', org: null }, failure: null, tokenSent: true },
      spend: { graphqlCost: async () => undefined, creates: async () => undefined },
    });
    const read = vi.fn(async (keys: readonly string[]) => keys);
    await expect(context.load({ read }, 'a')).rejects.toMatchObject({ extensions: { code: 'UNAVAILABLE' } });
    expect(read).not.toHaveBeenCalled();
  });
});
