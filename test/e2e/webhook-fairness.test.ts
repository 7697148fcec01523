import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { createLogger } from '../../src/logger.js';
import { deliverySuperviseSeconds, startDelivery, type DeliveryWorkers } from '../../src/webhooks/delivery.js';
import { startJobQueue } from '../../src/jobs/job-queue.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
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

/**
 * Tenant B's side of an attack: a root, one endpoint at the healthy receiver, then B_EVENTS
 * policies 100 ms apart; each event's time from its create to its arrival (Infinity if it never
 * came within its bound and a second more).
 */
async function victimLatencies(
  service: TestServiceHandle,
  sub: string,
  healthy: { url: string; arrivals: Map<number, number> },
): Promise<number[]> {
  const victim = await service.token({ sub });
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
  const last = Math.max(...createdAt.values());
  await until(() => healthy.arrivals.size === B_EVENTS || Date.now() > last + BOUND_MS + 1_000, "B's events", BOUND_MS + 10_000);
  return [...createdAt].map(([number, at]) => (healthy.arrivals.has(number) ? healthy.arrivals.get(number)! - at : Infinity));
}

/** Delivery workers on `service`'s own gateway, as its own worker would use them (the service runs none here). */
async function deliveryWorkers(service: TestServiceHandle, fairness?: boolean): Promise<DeliveryWorkers> {
  const settings = loadConfig(service.env).webhooks;
  const logger = createLogger('silent');
  // A job queue of their own, as another instance's would be (the service runs none: delivery off).
  const jobs = await startJobQueue({
    database: service.database,
    databaseUrl: service.databaseUrl,
    logger,
    superviseSeconds: deliverySuperviseSeconds(settings),
  });
  const workers = await startDelivery({
    database: service.database,
    jobs,
    settings,
    cipher: new FieldCipher(Buffer.from(service.env.DATA_ENCRYPTION_KEY, 'base64')),
    logger,
    fairness,
  });
  return {
    async stop() {
      await workers.stop();
      await jobs.stop();
    },
  };
}

/** Runs the scenario on `service` with delivery workers started with `fairness`; B's latencies. */
async function scenario(service: TestServiceHandle, fairness: boolean): Promise<number[]> {
  const dead = await deadReceiver();
  const healthy = await healthyReceiver();
  let workers: DeliveryWorkers | undefined;
  try {
    workers = await deliveryWorkers(service, fairness);
    const attacker = await service.token({ sub: `tree-a-${fairness}` });
    const a = (await request(service.url, 'POST', '/api/v1/organization', { token: attacker, body: organizationBody() })).body.id as string;
    for (let i = 0; i < QUOTA; i++) {
      const created = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
        token: attacker,
        body: { url: dead.url, organizationId: a },
      });
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

    // Awaited here: the receivers close in `finally`.
    return await victimLatencies(service, `tree-b-${fairness}`, healthy);
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

/**
 * Contract section 12, "Webhooks are fair between tenants" (security review 3, H1): tenant A (one
 * `sub`) has 3 trees with 25 endpoints each at a receiver that never answers and 3 trees with 25
 * each at one that answers 200 after 90% of the timeout (the review's 9 s of 10, scaled to the
 * test's 3 s), and 4 events in each tree: 600 deliveries, at 150 endpoints, against 10 slots. With
 * delivery shared per tree, 6 trees × 4 in flight held every slot. Tenant B's single endpoint at
 * a healthy receiver still gets each new event within 5 s (p99 over 50 events).
 */
const TENANT_A_TREES = 3;
const TENANT_A_EVENTS_PER_TREE = 4;

/** Answers 200 after `delayMs`; counts the requests open. */
async function slowReceiver(delayMs: number) {
  let open = 0;
  const server: Server = createHttpServer((req, res) => {
    open++;
    req.resume();
    const timer = setTimeout(() => res.end(), delayMs);
    res.on('close', () => {
      clearTimeout(timer);
      open--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`,
    open: () => open,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function tenantScenario(service: TestServiceHandle): Promise<number[]> {
  const settings = loadConfig(service.env).webhooks;
  const dead = await deadReceiver();
  const slow = await slowReceiver(settings.timeoutSeconds * 900);
  const healthy = await healthyReceiver();
  let workers: DeliveryWorkers | undefined;
  try {
    workers = await deliveryWorkers(service);
    const attacker = await service.token({ sub: 'tenant-a' });
    const trees: string[] = [];
    for (const url of [...Array<string>(TENANT_A_TREES).fill(dead.url), ...Array<string>(TENANT_A_TREES).fill(slow.url)]) {
      const root = await request(service.url, 'POST', '/api/v1/organization', { token: attacker, body: organizationBody() });
      expect(root.status, root.text).toBe(200);
      trees.push(root.body.id as string);
      const endpoints = await Promise.all(
        Array.from({ length: QUOTA }, () =>
          request(service.url, 'POST', '/api/v1/webhook-endpoints', { token: attacker, body: { url, organizationId: root.body.id } }),
        ),
      );
      for (const created of endpoints) expect(created.status, created.text).toBe(200);
    }
    for (let i = 0; i < TENANT_A_EVENTS_PER_TREE; i++) {
      const batch = await Promise.all(
        trees.map((organizationId) =>
          request(service.url, 'POST', '/api/v1/policy', { token: attacker, body: policyBody({ organizationId }) }),
        ),
      );
      for (const response of batch) expect(response.status, response.text).toBe(200);
    }
    // The attack is on once A holds its share (which of its receivers first depends on the
    // queue's order; the dead ones' attempts alone take 75 × 3 s).
    await until(() => dead.open() + slow.open() >= 4, 'attempts at A’s receivers', 30_000);

    return await victimLatencies(service, 'tenant-b', healthy);
  } finally {
    dead.close();
    slow.close();
    healthy.close();
    await workers?.stop();
  }
}

describe('webhook delivery is fair between tenants', () => {
  const service = useTestService(env);

  it(
    "delivers each of tenant B's events within 5 s (p99 over 50) while tenant A's 6 trees hold 150 dead or slow endpoints",
    { timeout: 120_000 },
    async () => {
      const latencies = await tenantScenario(service);
      expect(latencies.filter((latency) => latency === Infinity)).toEqual([]);
      expect(p99(latencies)).toBeLessThanOrEqual(BOUND_MS);
    },
  );
});

describe('an endpoint that keeps failing', () => {
  // Short back-off and retry window, many attempts: the window, not the attempts, ends it.
  const service = useTestService({
    WEBHOOK_RETRY_BASE_SECONDS: '1',
    WEBHOOK_RETRY_WINDOW_SECONDS: '3',
    WEBHOOK_MAX_ATTEMPTS: '100',
    WEBHOOK_TIMEOUT_SECONDS: '2',
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
  });
  let failing: { url: string; count: () => number; close: () => void };

  const setUp = async (sub: string) => {
    let count = 0;
    const server = createHttpServer((req, res) => {
      count++;
      req.resume();
      res.statusCode = 500;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    failing = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, count: () => count, close: () => server.close() };
    const token = await service.token({ sub });
    const root = (await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() })).body.id as string;
    const endpoint = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: { url: failing.url, organizationId: root, events: ['policy.created'] },
    });
    expect(endpoint.status, endpoint.text).toBe(200);
    const createPolicy = async () => {
      const response = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: root }) });
      expect(response.status, response.text).toBe(200);
    };
    return { token, root, endpointId: endpoint.body.id as string, createPolicy };
  };

  it('is backed off as a whole: its new deliveries wait for it, without an attempt', async () => {
    const { endpointId, createPolicy } = await setUp('backed-off');
    try {
      await createPolicy();
      await until(
        async () =>
          (await service.sql<{ failures: number }>('select failures from webhook_endpoint where id = $1', [endpointId]))[0].failures >= 1,
        'the first failure',
        30_000,
      );
      // A long back-off, as after many failures.
      await service.sql(`update webhook_endpoint set retry_at = now() + interval '1 hour' where id = $1`, [endpointId]);
      await createPolicy();
      await createPolicy();
      const fresh = async () =>
        service.sql<{ attempts: number; enqueued: boolean; waits: boolean }>(
          `select d.attempts, d.enqueued, d.next_attempt_at >= w.retry_at - interval '1 second' as waits
           from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id where d.endpoint_id = $1 and d.attempts = 0`,
          [endpointId],
        );
      await until(async () => (await fresh()).filter((row) => row.enqueued).length === 2, 'the new deliveries to be queued', 30_000);
      expect(await fresh()).toEqual([
        { attempts: 0, enqueued: true, waits: true },
        { attempts: 0, enqueued: true, waits: true },
      ]);
    } finally {
      failing.close();
    }
  });

  it('is disabled after the retry window, with its reason on REST and GraphQL reads; its deliveries fail and it gets no new ones', async () => {
    const { token, endpointId, createPolicy } = await setUp('disabled');
    try {
      const read = () => request(service.url, 'GET', `/api/v1/webhook-endpoints/${endpointId}`, { token });
      expect((await read()).body).toMatchObject({ status: 'active', disabledReason: null, disabledAt: null });
      // Failing for the whole window takes a failure after it: events keep coming, as they would.
      await until(
        async () => {
          if ((await read()).body.status === 'disabled') return true;
          await createPolicy();
          return false;
        },
        'the endpoint to be disabled',
        25_000,
      );
      const rest = (await read()).body;
      expect(rest.disabledReason).toMatch(/^no attempt succeeded for 3 s; the last one: HTTP 500$/);
      expect(rest.disabledAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      const gql = await graphql(
        service.url,
        'query ($id: ID!) { webhookEndpoint(id: $id) { status disabledReason disabledAt } }',
        { id: endpointId },
        token,
      );
      expect(gql.body.data.webhookEndpoint).toEqual({
        status: 'disabled',
        disabledReason: rest.disabledReason,
        disabledAt: rest.disabledAt,
      });
      const statuses = async () =>
        (await service.sql<{ status: string }>('select status from webhook_delivery where endpoint_id = $1', [endpointId])).map(
          (row) => row.status,
        );
      const made = await statuses();
      expect(made.length).toBeGreaterThan(0);
      expect(made.filter((status) => status !== 'failed')).toEqual([]);
      await createPolicy();
      expect(await statuses()).toHaveLength(made.length);
    } finally {
      failing.close();
    }
  });
});

describe('a receiver that succeeds slowly (security review 3, H1)', () => {
  // An 8 s timeout, and a receiver answering after 5.5 s: a success, and a slow one (over 5 s).
  // A long back-off, so that the next delivery's wait is seen before it ends.
  const service = useTestService({
    WEBHOOK_TIMEOUT_SECONDS: '8',
    WEBHOOK_RETRY_BASE_SECONDS: '60',
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
  });

  it('is backed off as a failing one is, and ends the failing time that disables it (it delivers)', { timeout: 60_000 }, async () => {
    let count = 0;
    const server = createHttpServer((req, res) => {
      count++;
      req.resume();
      setTimeout(() => res.end(), 5_500);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const token = await service.token({ sub: 'slow-success' });
      const root = (await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() })).body.id as string;
      const endpoint = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
        token,
        body: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, organizationId: root, events: ['policy.created'] },
      });
      expect(endpoint.status, endpoint.text).toBe(200);
      const endpointId = endpoint.body.id as string;
      // As after failures an hour ago, since answered: a slow success ends that, as any success does.
      await service.sql(`update webhook_endpoint set failing_since = now() - interval '1 hour' where id = $1`, [endpointId]);
      const createPolicy = async () => {
        const response = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: root }) });
        expect(response.status, response.text).toBe(200);
      };
      const deliveries = () =>
        service.sql<{ status: string; attempts: number; enqueued: boolean; waits: boolean }>(
          `select d.status, d.attempts, d.enqueued, d.next_attempt_at >= w.retry_at - interval '1 second' as waits
           from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id where d.endpoint_id = $1 order by d.created_at`,
          [endpointId],
        );

      await createPolicy();
      await until(async () => (await deliveries())[0]?.status === 'delivered', 'the slow delivery', 30_000);
      // Delivered, and the endpoint waits as after a failure (60 s × 2^0, with jitter: 30-60 s).
      const [health] = await service.sql<{ failures: number; wait: number; failing: boolean }>(
        `select failures, extract(epoch from retry_at - now())::float8 as wait, failing_since is not null as failing
         from webhook_endpoint where id = $1`,
        [endpointId],
      );
      expect(health.failures).toBe(1);
      expect(health.wait).toBeGreaterThan(20);
      expect(health.failing).toBe(false);

      // The next event's delivery waits for the endpoint, without an attempt.
      await createPolicy();
      await until(async () => (await deliveries())[1]?.enqueued === true, 'the next delivery to be queued', 30_000);
      expect((await deliveries())[1]).toEqual({ status: 'pending', attempts: 0, enqueued: true, waits: true });
      expect(count).toBe(1);
      const read = await request(service.url, 'GET', `/api/v1/webhook-endpoints/${endpointId}`, { token });
      expect(read.body).toMatchObject({ status: 'active', disabledReason: null });
    } finally {
      server.close();
    }
  });
});
