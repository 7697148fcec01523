import { describe, expect, it, vi } from 'vitest';
import { createContextFactory } from '../../src/graphql/context.js';

/**
 * Apollo Server copies each request's context (`Object.assign(Object.create(prototype), context)`
 * in ApolloServer.js): the copy must not make the batch loaders or the child logger, which a
 * simple read never needs. The database is the process's gateway, the same for every request.
 */
describe('the request context', () => {
  it('makes its loaders and logger on first use, not when Apollo copies it', () => {
    const database = { gateway: true };
    const child = vi.fn(() => ({ child: true }));
    const createContext = createContextFactory({
      database: database as never,
      replicas: { reader: () => ({ replica: true }) } as never,
      cipher: {} as never,
      webhookUrls: { publicOnly: false },
      quoteValidDays: 30,
      policyRules: { freeLookDays: 15, shortRatePercent: 10, reinstatementDays: 30, renewalWindowDays: 60 },
      logger: { child } as never,
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
    const loaders = copy.loaders;
    expect(copy.loaders).toBe(loaders);
    expect(copy.logger).toEqual({ child: true });
    expect(child).toHaveBeenCalledWith({ requestId: 'r1', sub: 'alice' });
    expect(child).toHaveBeenCalledTimes(1);
  });
});
