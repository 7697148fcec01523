import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { startJobQueue } from '../../src/jobs/job-queue.js';
import { createLogger } from '../../src/logger.js';
import { ServiceMetrics } from '../../src/observability/metrics.js';
import { deliverySuperviseSeconds, startDelivery } from '../../src/webhooks/delivery.js';
import { purgeOldSends } from '../../src/webhooks/delivery-rate-limit.js';
import { eventually } from '../support/eventually.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { useTestService, type TestServiceHandle } from '../support/test-service.js';

/**
 * Contract section 22: "`rateLimitPerSecond` (1-1,000, optional): deliveries to the endpoint never
 * exceed it", measured where it matters, at the receiver. An endpoint limited to 5 a second has
 * 200 events pending when two instances' delivery workers start (two job queues, as two
 * instances have); the receiver notes when each request arrives: all 200 arrive, once each, never
 * more than 5 within any 1,000 ms, and in about the time the limit takes. An endpoint without a
 * limit, in the same tree and the same run, gets the same 200 events at its own pace and new ones
 * within seconds: a throttled endpoint holds no delivery slot (its jobs are put off, not held).
 * The pure decisions: test/unit/send-window.test.ts.
 */
const LIMIT = 5;
const EVENTS = 200;
/** The limit's own time for the backlog, half again, and 20 s for the start and the polls. */
const BOUND_MS = (EVENTS / LIMIT) * 1.5 * 1000 + 20_000;
const NEW_EVENTS = 10;
const NEW_EVENT_BOUND_MS = 5_000;

/** Notes when each request arrives (before its body is read), by its webhook-id (the event's id), and answers 200. */
async function receiver() {
  const arrivals: Array<{ at: number; eventId: string }> = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    arrivals.push({ at: Date.now(), eventId: String(req.headers['webhook-id']) });
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const distinct = () => new Set(arrivals.map((arrival) => arrival.eventId)).size;
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, arrivals, distinct, close: () => server.close() };
}

/** The most arrivals within any 1,000 ms (a window [t, t + 1000)). */
function mostInOneSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, i = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[first] >= 1_000) first++;
    most = Math.max(most, i - first + 1);
  }
  return most;
}

/** One instance's delivery workers on the service's database, with a job queue and metrics of their own. */
async function instance(service: TestServiceHandle) {
  const settings = loadConfig(service.env).webhooks;
  const logger = createLogger('silent');
  const jobs = await startJobQueue({
    database: service.database,
    databaseUrl: service.databaseUrl,
    logger,
    superviseSeconds: deliverySuperviseSeconds(settings),
  });
  const metrics = new ServiceMetrics();
  const workers = await startDelivery({
    database: service.database,
    jobs,
    settings,
    cipher: new FieldCipher(Buffer.from(service.env.DATA_ENCRYPTION_KEY, 'base64')),
    logger,
    metrics,
  });
  return {
    /** Jobs this instance put off because the endpoint was at its limit. */
    refusals: async () => (await metrics.registry.getSingleMetric('webhook_delivery_throttled_total')!.get()).values[0]?.value ?? 0,
    async stop() {
      await workers.stop();
      await jobs.stop();
    },
  };
}

describe("a webhook endpoint's rate limit", () => {
  // The service runs no delivery workers: the test starts two instances' after the backlog is made.
  const service = useTestService({
    WEBHOOK_DELIVERY: 'false',
    RATE_LIMIT_CREATES_PER_MINUTE: '0',
    RATE_LIMIT_CONCURRENT_REQUESTS: '0',
  });

  it(
    `delivers ${EVENTS} pending events at most ${LIMIT} a second at the receiver, across two instances`,
    { timeout: 240_000 },
    async () => {
      const limited = await receiver();
      const unlimited = await receiver();
      const instances: Array<Awaited<ReturnType<typeof instance>>> = [];
      try {
        const token = await service.token({ sub: 'rate-limited' });
        const root = (await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() })).body.id as string;
        const endpoint = async (url: string, events: string[]) => {
          const created = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
            token,
            body: { url, organizationId: root, events },
          });
          expect(created.status, created.text).toBe(200);
          return created.body.id as string;
        };
        const limitedId = await endpoint(limited.url, ['policy.created']);
        const unlimitedId = await endpoint(unlimited.url, ['policy.created', 'organization.created']);
        const patched = await request(service.url, 'PATCH', `/api/v1/webhook-endpoints/${limitedId}`, {
          token,
          body: { rateLimitPerSecond: LIMIT },
          headers: { 'content-type': 'application/merge-patch+json' },
        });
        expect(patched.status, patched.text).toBe(200);
        expect(patched.body.rateLimitPerSecond).toBe(LIMIT);

        // The backlog, made while no delivery runs.
        for (let i = 0; i < EVENTS; i += 8) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(8, EVENTS - i) }, () =>
              request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: root }) }),
            ),
          );
          for (const response of batch) expect(response.status, response.text).toBe(200);
        }

        const started = Date.now();
        instances.push(await instance(service), await instance(service));

        // The endpoint without a limit gets the backlog at its own pace, and a new event within seconds
        // while the limited endpoint's backlog still drains.
        await eventually(() => unlimited.distinct() === EVENTS, "the unlimited endpoint's backlog", BOUND_MS);
        const unlimitedDoneMs = Date.now() - started;
        const latencies: number[] = [];
        for (let i = 0; i < NEW_EVENTS; i++) {
          const before = unlimited.distinct();
          const createdAt = Date.now();
          const child = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody({ parentId: root }) });
          expect(child.status, child.text).toBe(200);
          await eventually(() => unlimited.distinct() > before, 'a new event at the unlimited endpoint', NEW_EVENT_BOUND_MS + 5_000);
          latencies.push(Date.now() - createdAt);
        }
        const stillDraining = limited.distinct() < EVENTS;

        await eventually(() => limited.distinct() === EVENTS, "the limited endpoint's backlog", BOUND_MS);
        const limitedDoneMs = Date.now() - started;
        // Time for a duplicate to show, were there one.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const refusals = (await instances[0].refusals()) + (await instances[1].refusals());
        const most = mostInOneSecond(limited.arrivals.map((arrival) => arrival.at));
        console.info(
          `rate limit ${LIMIT}/s: ${EVENTS} events in ${(limitedDoneMs / 1000).toFixed(1)} s, at most ${most} in any 1,000 ms, ` +
            `${refusals} refusals; without a limit: ${(unlimitedDoneMs / 1000).toFixed(1)} s, at most ` +
            `${mostInOneSecond(unlimited.arrivals.slice(0, EVENTS).map((arrival) => arrival.at))} in any 1,000 ms; ` +
            `new events there in ${Math.max(...latencies)} ms at most`,
        );

        expect(limited.arrivals).toHaveLength(EVENTS);
        expect(limited.distinct()).toBe(EVENTS);
        expect(most).toBeLessThanOrEqual(LIMIT);
        expect(limitedDoneMs).toBeLessThanOrEqual(BOUND_MS);
        // Paced: each job refused about once (the backlog's first try), not at every second it waits.
        expect(refusals).toBeLessThan(2 * EVENTS);

        expect(unlimited.distinct()).toBe(EVENTS + NEW_EVENTS);
        expect(stillDraining).toBe(true);
        expect(Math.max(...latencies)).toBeLessThanOrEqual(NEW_EVENT_BOUND_MS);
        // No row, no statement, for the endpoint without a limit; the limited one's rows stay few.
        const rows = await service.sql<{ endpoint_id: string }>('select endpoint_id from webhook_send');
        expect(rows.filter((row) => row.endpoint_id === unlimitedId)).toEqual([]);
        expect(rows.length).toBeLessThanOrEqual(LIMIT + 1);
        // The retention's sweep takes the rows that stopped counting long ago (a claim only clears its own endpoint's).
        await service.sql(
          `insert into webhook_send (endpoint_id, claimed_at, finished_at) values ($1, now() - interval '2 hours', now() - interval '2 hours')`,
          [unlimitedId],
        );
        await purgeOldSends(service.database, 10, createLogger('silent'));
        expect(await service.sql('select endpoint_id from webhook_send')).toHaveLength(rows.length);
      } finally {
        limited.close();
        unlimited.close();
        await Promise.all(instances.map((running) => running.stop()));
      }
    },
  );
});
