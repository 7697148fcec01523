import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { createLogger } from '../../src/logger.js';
import { startDelivery, type DeliveryWorkers } from '../../src/webhooks/delivery.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { useTestService, type TestServiceHandle } from '../support/test-service.js';

/**
 * Contract section 12, "Webhooks are fair between trees" (security review 2, H1): tree A has its
 * quota of endpoints at a receiver that accepts connections and never answers, and 200 events
 * queued; tree B's single endpoint at a healthy receiver still gets each new event within 5 s
 * (p99 over 50 events). The delivery workers are started here, with `fairness` on, and off (the
 * `startDelivery` option): without it B starves, which shows the test can fail.
 */
const QUOTA = 25;
const A_EVENTS = 200;
const B_EVENTS = 50;
const BOUND_MS = 5_000;

/** Accepts connections and never answers; counts those open. */
async function deadReceiver() {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/dead`,
    open: () => sockets.size,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** Answers 200 at once, and notes when each policy number's event arrived. */
async function healthyReceiver() {
  const arrivals = new Map<number, number>();
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const event = JSON.parse(body);
      const number = event.data?.object?.number;
      if (typeof number === 'number' && !arrivals.has(number)) arrivals.set(number, Date.now());
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, arrivals, close: () => server.close() };
}

async function until(probe: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The p99 of latencies (ms); an event not received counts as never. */
function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1];
}

/** Runs the scenario on `service` with delivery workers started with `fairness`; B's latencies. */
async function scenario(service: TestServiceHandle, fairness: boolean): Promise<number[]> {
  const dead = await deadReceiver();
  const healthy = await healthyReceiver();
  let workers: DeliveryWorkers | undefined;
  try {
    workers = await startDelivery({
      databaseUrl: service.databaseUrl,
      settings: loadConfig(service.env).webhooks,
      cipher: new FieldCipher(Buffer.from(service.env.DATA_ENCRYPTION_KEY, 'base64')),
      logger: createLogger('silent'),
      fairness,
    });
    const attacker = await service.token({ sub: `tree-a-${fairness}` });
    const a = (await request(service.url, 'POST', '/api/v1/organization', { token: attacker, body: organizationBody() })).body.id as string;
    for (let i = 0; i < QUOTA; i++) {
      const created = await request(service.url, 'POST', '/api/v1/webhook-endpoints', { token: attacker, body: { url: dead.url, organizationId: a } });
      expect(created.status, created.text).toBe(200);
    }
    // 200 events in A, 8 creates at a time: 5,000 deliveries to the dead receiver.
    for (let i = 0; i < A_EVENTS; i += 8) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(8, A_EVENTS - i) }, () =>
          request(service.url, 'POST', '/api/v1/policy', { token: attacker, body: policyBody({ organizationId: a }) }),
        ),
      );
      for (const response of batch) expect(response.status, response.text).toBe(200);
    }
    // The attack is on once the dead receiver holds connections.
    await until(() => dead.open() >= 4, 'attempts at the dead receiver', 30_000);

    const victim = await service.token({ sub: `tree-b-${fairness}` });
    const b = (await request(service.url, 'POST', '/api/v1/organization', { token: victim, body: organizationBody() })).body.id as string;
    const endpoint = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token: victim,
      body: { url: healthy.url, organizationId: b, events: ['policy.created'] },
    });
    expect(endpoint.status, endpoint.text).toBe(200);
    const createdAt = new Map<number, number>();
    for (let i = 0; i < B_EVENTS; i++) {
      const response = await request(service.url, 'POST', '/api/v1/policy', { token: victim, body: policyBody({ organizationId: b }) });
      expect(response.status, response.text).toBe(200);
      createdAt.set(response.body.number as number, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Every event has had its bound (and a second more) to arrive.
    const last = Math.max(...createdAt.values());
    await until(() => healthy.arrivals.size === B_EVENTS || Date.now() > last + BOUND_MS + 1_000, "B's events", BOUND_MS + 10_000);
    return [...createdAt].map(([number, at]) => (healthy.arrivals.has(number) ? healthy.arrivals.get(number)! - at : Infinity));
  } finally {
    dead.close();
    healthy.close();
    await workers?.stop();
  }
}

// Short attempts and back-off, so that the dead receiver's attempts come round quickly; the
// service's own workers are off (the test starts them). Creates are not rate limited here.
const env = {
  WEBHOOK_DELIVERY: 'false',
  WEBHOOK_TIMEOUT_SECONDS: '3',
  WEBHOOK_RETRY_BASE_SECONDS: '2',
  RATE_LIMIT_CREATES_PER_MINUTE: '0',
  RATE_LIMIT_CONCURRENT_REQUESTS: '0',
};

describe('webhook delivery is fair between trees', () => {
  const service = useTestService(env);

  it("delivers each of tree B's events within 5 s (p99 over 50) while tree A's endpoints never answer", async () => {
    const latencies = await scenario(service, true);
    expect(latencies.filter((latency) => latency === Infinity)).toEqual([]);
    expect(p99(latencies)).toBeLessThanOrEqual(BOUND_MS);
  });
});

describe('webhook delivery without fairness (the same scenario, to show the test can fail)', () => {
  const service = useTestService(env);

  it('starves tree B', async () => {
    const latencies = await scenario(service, false);
    expect(p99(latencies)).toBeGreaterThan(BOUND_MS);
  });
});
