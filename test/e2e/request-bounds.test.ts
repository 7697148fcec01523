import { request as httpRequest } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { policyBody } from '../support/fixtures.js';
import { lockTable } from '../support/lock-waits.js';
import { request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 12 over HTTP: no single request holds the process, the pool or a connection.
 * Requests waiting their turn in flight are answered at their deadline, and the HTTP server has
 * timeouts and connection caps. The deadline, the statement timeout, the response cap and the
 * quotas as the operation core holds them: test/in-process/request-bounds.
 */
describe('request bounds', () => {
  describe('deadline with requests waiting their turn', () => {
    const service = useTestService({
      REQUEST_DEADLINE_SECONDS: '1',
      DATABASE_STATEMENT_TIMEOUT_SECONDS: '30',
      RATE_LIMIT_CONCURRENT_REQUESTS: '8',
    });
    let alice: string;
    let bob: string;
    beforeAll(async () => {
      let organizationId: string;
      ({ token: alice, organizationId } = await createRootOrganization(service));
      bob = await service.token({ sub: 'bob', org: organizationId });
    });

    it('answers 503 to waiting and stuck creates alike, writes none of them late, and frees the places once their work stops', async () => {
      const release = await lockTable(service.databaseUrl, 'organization');
      let answers: number[];
      try {
        // bob is served too, so alice runs 4 at once and her other 4 wait their turn.
        const bobs = request(service.url, 'GET', '/api/v1/policy/1', { token: bob });
        await sleep(100);
        answers = (
          await Promise.all(
            Array.from({ length: 8 }, () =>
              request(service.url, 'POST', '/api/v1/policy', { token: alice, body: policyBody({ petName: 'TooLate' }) }),
            ),
          )
        ).map((response) => response.status);
        expect(answers).toEqual(Array(8).fill(503));
        expect((await bobs).status).toBe(503);
      } finally {
        await release();
      }
      await sleep(500);
      expect(await service.sql("select 1 from policy where pet_name = 'TooLate'")).toEqual([]);
      // Their work has stopped: alice's places in flight are hers again.
      const again = await Promise.all(Array.from({ length: 8 }, () => request(service.url, 'GET', '/api/v1/policy/1', { token: alice })));
      expect(again.map((response) => response.status)).toEqual(Array(8).fill(404));
    });
  });

  describe('connections', () => {
    const service = useTestService({ HTTP_HEADERS_TIMEOUT_SECONDS: '1', HTTP_REQUEST_TIMEOUT_SECONDS: '2', HTTP_MAX_CONNECTIONS: '20' });

    const open = () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = createConnection(Number(new URL(service.url).port), '127.0.0.1', () => resolve(socket));
        socket.on('error', reject);
      });
    const closedWithin = (socket: Socket, ms: number) =>
      new Promise<{ closed: boolean; text: string }>((resolve) => {
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        const timer = setTimeout(() => resolve({ closed: false, text }), ms);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve({ closed: true, text });
        });
      });

    it('closes a connection that trickles its headers or its body', async () => {
      const slowHeaders = await open();
      slowHeaders.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      const slowBody = await open();
      const token = await service.token({ sub: 'slow' });
      slowBody.write(
        `POST /api/v1/organization HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
      );
      const [headers, body] = await Promise.all([closedWithin(slowHeaders, 6000), closedWithin(slowBody, 6000)]);
      expect(headers.closed).toBe(true);
      expect(body.closed).toBe(true);
      expect(body.text).toMatch(/^HTTP\/1.1 408/);
    });

    // Node's headersTimeout counts from the connection's start, not from its first byte, so a
    // connection that never completes its first request is closed too (with a 408).
    it('closes a connection that sends nothing within HTTP_HEADERS_TIMEOUT_SECONDS', async () => {
      const silent = await open();
      const result = await closedWithin(silent, 8000);
      expect(result.closed).toBe(true);
      expect(result.text).toMatch(/^HTTP\/1.1 408/);
    });

    it('holds at most HTTP_MAX_CONNECTIONS connections', async () => {
      const sockets = await Promise.all(Array.from({ length: 20 }, open));
      const extra = await open();
      expect((await closedWithin(extra, 2000)).closed).toBe(true);
      for (const socket of sockets) socket.destroy();
      await sleep(100);
      expect((await request(service.url, 'GET', '/healthz')).status).toBe(200);
    });
  });

  describe('connections per client address', () => {
    // A total of 20 that one address could fill alone; 5 per address. Idle keep-alive connections
    // stay open for the whole test.
    const service = useTestService({ HTTP_MAX_CONNECTIONS: '20', MAX_CONNECTIONS_PER_ADDRESS: '5', HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '60' });
    const port = () => Number(new URL(service.url).port);

    /** A connection from `localAddress` that asks for /healthz once: kept (answered, still open) or closed. */
    const hold = (localAddress: string) =>
      new Promise<{ socket: Socket; kept: boolean }>((resolve) => {
        const socket = createConnection({ port: port(), host: '127.0.0.1', localAddress });
        socket.on('error', () => undefined);
        socket.once('close', () => resolve({ socket, kept: false }));
        socket.once('data', () => resolve({ socket, kept: true }));
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      });
    /** A GET on a fresh connection from `localAddress`: its status. */
    const get = (localAddress: string, path: string, token?: string) =>
      new Promise<number>((resolve, reject) => {
        const headers: Record<string, string> = { connection: 'close', ...(token ? { authorization: `Bearer ${token}` } : {}) };
        const req = httpRequest({ host: '127.0.0.1', port: port(), path, localAddress, headers, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });

    it('lets one address hold only its share, so another address is still answered', async () => {
      const held = await Promise.all(Array.from({ length: 25 }, () => hold('127.0.0.1')));
      try {
        expect(held.filter((connection) => connection.kept)).toHaveLength(5);
        // Another client, from another loopback address, while the first holds its cap.
        const token = await service.token({ sub: 'other-address' });
        expect(await get('127.0.0.2', '/healthz')).toBe(200);
        expect(await get('127.0.0.2', '/api/v1/organization', token)).toBe(200);
        expect(await get('127.0.0.2', '/healthz')).toBe(200);
      } finally {
        for (const { socket } of held) socket.destroy();
      }
      // Its slots come back once the server has seen its connections close.
      let again = await hold('127.0.0.1');
      for (let tries = 0; !again.kept && tries < 100; tries++) again = (await sleep(20), await hold('127.0.0.1'));
      again.socket.destroy();
      expect(again.kept).toBe(true);
    });
  });

  describe('keep-alive', () => {
    // An idle connection closes after 1 s plus Node's keepAliveTimeoutBuffer (1 s).
    const service = useTestService({ HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '1' });
    const GET = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

    /** A raw keep-alive connection: what it was sent back, whether it closed, and its error. */
    async function connection() {
      const socket = createConnection(Number(new URL(service.url).port), '127.0.0.1');
      await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const state = { text: '', closed: false, error: undefined as string | undefined };
      socket.on('data', (chunk) => (state.text += chunk));
      socket.on('error', (error: NodeJS.ErrnoException) => (state.error = error.code));
      const closed = new Promise<void>((resolve) => socket.on('close', () => ((state.closed = true), resolve())));
      const answers = () => state.text.match(/HTTP\/1\.1 200 /g)?.length ?? 0;
      const answered = async (count: number) => {
        while (answers() < count && !state.closed) await sleep(10);
      };
      return { socket, state, closed, answers, answered };
    }

    it('answers a request that reached an idle connection before its timer ran (no ECONNRESET)', async () => {
      const client = await connection();
      client.socket.write(GET);
      await client.answered(1);
      // The event loop stalls past the idle deadline (as on a starved machine) and the next request
      // is sent at the end of that turn: the next turn runs the connection's idle timer before it
      // reads the request. Without keep-alive.ts, Node destroys the socket with the request unread:
      // a TCP reset, ECONNRESET here.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const end = Date.now() + 2_500;
          while (Date.now() < end);
          client.socket.write(GET);
          resolve();
        }),
      );
      await client.answered(2);
      expect(client.state.error).toBeUndefined();
      expect(client.answers()).toBe(2);
      client.socket.destroy();
    });

    it('still closes a connection that stays idle', async () => {
      const client = await connection();
      client.socket.write(GET);
      await client.answered(1);
      const idleSince = performance.now();
      await client.closed;
      expect(performance.now() - idleSince).toBeGreaterThan(1_500);
      expect(client.state.error).toBeUndefined();
    });
  });
});
