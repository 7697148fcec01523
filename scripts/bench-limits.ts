import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Request, Response } from 'express';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { rateLimitGate } from '../src/http/rate-limit-gate.js';
import { RateLimits } from '../src/limits/rate-limits.js';

/**
 * The limits' own work per request, measured in this process: the rate-limit middleware (a
 * requests budget counted in memory, a place in flight taken, held and given back) run over
 * many requests of many callers, with every limit on (too high to trigger), minus the same run
 * with every limit off. Unlike two server processes, which differ by several percent on this
 * machine, this is repeatable to about a microsecond. `npm run bench` runs it compiled
 * (`node dist/scripts/bench-limits.js`, which prints the result as JSON): under tsx every
 * closure made costs a naming call that compiled code does not have.
 */
export async function limitsCostPerRequest(requests = 200_000): Promise<{ on: number; off: number }> {
  const measure = async (env: Record<string, string>) => {
    // Production's settings; nothing here connects to the database it names.
    const { limits } = loadConfig({
      ...env,
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://localhost/unused',
      JWT_SECRET: 'x'.repeat(32),
      DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    // Creates are counted in PostgreSQL; reads never touch that store.
    const middleware = rateLimitGate(new RateLimits(limits, {} as never, createLogger('silent')));
    const run = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const res = Object.assign(new EventEmitter(), {
          locals: {
            authentication: { principal: { sub: `caller-${i % 50}`, org: null }, failure: null, tokenSent: true },
            startedAt: performance.now(),
          },
          headersSent: false,
          appendHeader() {
            return res;
          },
          setHeader() {
            return res;
          },
        });
        const req = { ip: '127.0.0.1', socket: { destroyed: false, bytesWritten: 0 } };
        await new Promise<void>((next) => middleware(req as unknown as Request, res as unknown as Response, () => next()));
        (res.locals as { holdSlot?: (work: Promise<unknown>) => void }).holdSlot?.(Promise.resolve());
        res.emit('close');
      }
    };
    await run(requests / 10); // warm-up
    const started = performance.now();
    await run(requests);
    return ((performance.now() - started) * 1000) / requests;
  };
  const high = '999999999';
  const on = await measure({
    RATE_LIMIT_REQUESTS_PER_MINUTE: high,
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: high,
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: high,
    RATE_LIMIT_CONCURRENT_REQUESTS: '100000',
  });
  const off = await measure({
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_CREATES_PER_MINUTE: '0',
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
    RATE_LIMIT_CONCURRENT_REQUESTS: '0',
  });
  return { on, off };
}

if (process.argv[1]?.endsWith('bench-limits.js')) console.log(JSON.stringify(await limitsCostPerRequest()));
