import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/database/embedded-postgres.js';
import { ATTEMPT_ERRORS } from '../../src/webhooks/attempt-log.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { expectProblem, graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';
import { eventually } from '../support/eventually.js';

/**
 * The attempt log of a webhook endpoint (contract section 22) against real receivers started
 * here: one that answers 500 with 10 KB, a closed port, one that never answers. Each attempt is
 * read back by REST (`GET /api/v1/webhook-endpoints/{id}/attempts`, checked against the OpenAPI
 * document by the request helper) and by GraphQL (`WebhookEndpoint.attempts`).
 */
interface Attempt {
  id: string;
  eventId: string;
  deliveryId: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  responseBody: string | null;
}

/** 10 KB of text, different at every place, so a cut shows where it fell. */
const LONG_ANSWER = Array.from({ length: 1024 }, (_, index) => `${String(index).padStart(4, '0')}-err;`)
  .join('')
  .slice(0, 10 * 1024);

const ATTEMPTS_QUERY = `query ($id: ID!, $first: Int!, $after: String) {
  webhookEndpoint(id: $id) {
    attempts(first: $first, after: $after) {
      edges { cursor node { id eventId deliveryId attempt startedAt durationMs responseStatus error responseBody } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}`;

describe('the attempt log of a webhook endpoint', () => {
  // Two attempts per delivery, a second apart at most; a one-second time limit for the one that hangs.
  const service = useTestService({
    WEBHOOK_RETRY_BASE_SECONDS: '1',
    WEBHOOK_MAX_ATTEMPTS: '2',
    WEBHOOK_TIMEOUT_SECONDS: '1',
    RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '0',
  });
  const servers: Server[] = [];
  let token: string;
  const endpoint: Record<'failing' | 'refused' | 'hanging', string> = { failing: '', refused: '', hanging: '' };

  const listen = async (server: Server): Promise<string> => {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  };

  const organizationOf: Record<string, string> = {};

  /** A root organization with one endpoint for `url` (its policies' events only), and `policies` policies. */
  const endpointWithPolicies = async (url: string, policies: number): Promise<string> => {
    const organization = await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(organization.status, organization.text).toBe(200);
    const created = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: { url, organizationId: organization.body.id, events: ['policy.created'] },
    });
    expect(created.status, created.text).toBe(200);
    for (let index = 0; index < policies; index++) {
      const policy = await request(service.url, 'POST', '/api/v1/policy', {
        token,
        body: policyBody({ organizationId: organization.body.id }),
      });
      expect(policy.status, policy.text).toBe(200);
    }
    organizationOf[created.body.id] = organization.body.id;
    return created.body.id as string;
  };

  /** The endpoint's attempts as the database holds them, newest first. */
  const loggedAttempts = (endpointId: string) =>
    service.sql<{ id: string }>('select id from webhook_attempt where endpoint_id = $1 order by seq desc', [endpointId]);

  /** Waits until each of the endpoint's deliveries has made its two attempts (or `count` attempts are logged). */
  const attemptsMade = (endpointId: string, count: number) =>
    eventually(
      async () => {
        const rows = await loggedAttempts(endpointId);
        return rows.length >= count ? rows : undefined;
      },
      `${count} attempts to ${endpointId}`,
      60_000,
    );

  /** Every page of the REST list, `limit` at a time. */
  const restPages = async (endpointId: string, limit: number, as = token) => {
    const pages: Array<{ data: Attempt[]; hasMore: boolean; nextCursor: string | null }> = [];
    let after: string | null = null;
    do {
      const query: string = `limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const page = await request(service.url, 'GET', `/api/v1/webhook-endpoints/${endpointId}/attempts?${query}`, { token: as });
      expect(page.status, page.text).toBe(200);
      pages.push(page.body);
      after = page.body.nextCursor;
    } while (after);
    return pages;
  };

  beforeAll(async () => {
    token = await service.token({ sub: 'attempts-owner' });
    const failing = await listen(
      createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.statusCode = 500;
          res.setHeader('content-type', 'text/plain; charset=utf-8');
          res.end(LONG_ANSWER);
        });
      }),
    );
    // Reads the request and never answers; the connections are dropped when the test ends.
    const hanging = await listen(createServer((req) => req.resume()));
    // Nothing listens there.
    const refused = `http://127.0.0.1:${await freePort()}/hooks`;
    // Three deliveries of two attempts each: six attempts, for the pages.
    endpoint.failing = await endpointWithPolicies(failing, 3);
    endpoint.refused = await endpointWithPolicies(refused, 1);
    endpoint.hanging = await endpointWithPolicies(hanging, 1);
  });

  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keeps the status and exactly the first 4,096 bytes of a 500 with 10 KB', async () => {
    await attemptsMade(endpoint.failing, 6);
    const [page] = await restPages(endpoint.failing, 100);
    expect(page.data).toHaveLength(6);
    for (const attempt of page.data) {
      expect(attempt).toMatchObject({ responseStatus: 500, error: null });
      expect(Buffer.byteLength(attempt.responseBody!)).toBe(4096);
      expect(attempt.responseBody).toBe(LONG_ANSWER.slice(0, 4096));
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
      expect(new Date(attempt.startedAt).getTime()).toBeGreaterThan(Date.now() - 120_000);
    }
    // Each delivery twice, attempts 1 and 2, each of the event its delivery is for.
    const deliveries = await service.sql<{ id: string; event_id: string }>(
      'select id, event_id from webhook_delivery where endpoint_id = $1',
      [endpoint.failing],
    );
    expect(deliveries).toHaveLength(3);
    for (const delivery of deliveries) {
      const mine = page.data.filter((attempt) => attempt.deliveryId === delivery.id);
      expect(mine.map((attempt) => attempt.attempt).sort()).toEqual([1, 2]);
      expect(mine.every((attempt) => attempt.eventId === delivery.event_id)).toBe(true);
      // Newest first: the second attempt before the first.
      expect(mine.map((attempt) => attempt.attempt)).toEqual([2, 1]);
    }
  }, 60_000);

  it('logs a closed port as connection_refused, with no status and no body', async () => {
    await attemptsMade(endpoint.refused, 2);
    const [page] = await restPages(endpoint.refused, 20);
    expect(page.data).toHaveLength(2);
    for (const attempt of page.data) {
      expect(attempt).toMatchObject({ responseStatus: null, error: 'connection_refused', responseBody: null });
    }
  }, 60_000);

  it('logs a receiver that never answers as timeout, after the time limit', async () => {
    await attemptsMade(endpoint.hanging, 1);
    const [page] = await restPages(endpoint.hanging, 20);
    expect(page.data.length).toBeGreaterThanOrEqual(1);
    for (const attempt of page.data) {
      expect(attempt).toMatchObject({ responseStatus: null, error: 'timeout', responseBody: null });
      // WEBHOOK_TIMEOUT_SECONDS=1
      expect(attempt.durationMs).toBeGreaterThanOrEqual(900);
      expect(attempt.durationMs).toBeLessThan(5_000);
    }
  }, 60_000);

  it('pages newest first with limit and after, as the other lists', async () => {
    const newestFirst = (await attemptsMade(endpoint.failing, 6)).map((row) => row.id);
    const pages = await restPages(endpoint.failing, 4);
    expect(pages.map((page) => page.data.length)).toEqual([4, 2]);
    expect(pages.map((page) => page.hasMore)).toEqual([true, false]);
    expect(pages[1].nextCursor).toBeNull();
    expect(pages.flatMap((page) => page.data.map((attempt) => attempt.id))).toEqual(newestFirst);
    // Two at a time: the same order, three pages.
    const pairs = await restPages(endpoint.failing, 2);
    expect(pairs.map((page) => page.data.length)).toEqual([2, 2, 2]);
    expect(pairs.flatMap((page) => page.data.map((attempt) => attempt.id))).toEqual(newestFirst);
  });

  it('refuses a bad limit or cursor with 400, and answers 404 for an unknown id', async () => {
    const base = `/api/v1/webhook-endpoints/${endpoint.failing}/attempts`;
    expectProblem(await request(service.url, 'GET', `${base}?limit=0`, { token }), 400, 'BAD_USER_INPUT');
    expectProblem(await request(service.url, 'GET', `${base}?limit=101`, { token }), 400, 'BAD_USER_INPUT');
    expectProblem(await request(service.url, 'GET', `${base}?after=not-a-cursor`, { token }), 400, 'BAD_USER_INPUT');
    // A cursor of another list (the endpoints') is not one of this list.
    const endpointsCursor = Buffer.from('webhookEndpoint:1').toString('base64url');
    expectProblem(await request(service.url, 'GET', `${base}?after=${endpointsCursor}`, { token }), 400, 'BAD_USER_INPUT');
    expectProblem(
      await request(service.url, 'GET', '/api/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000/attempts', { token }),
      404,
      'NOT_FOUND',
    );
    expectProblem(await request(service.url, 'GET', '/api/v1/webhook-endpoints/not-a-uuid/attempts', { token }), 404, 'NOT_FOUND');
  });

  it("is 404 for another tree's endpoint, in REST and in GraphQL", async () => {
    const stranger = await service.token({ sub: 'attempts-stranger' });
    const own = await request(service.url, 'POST', '/api/v1/organization', { token: stranger, body: organizationBody() });
    expect(own.status, own.text).toBe(200);
    expectProblem(
      await request(service.url, 'GET', `/api/v1/webhook-endpoints/${endpoint.failing}/attempts`, { token: stranger }),
      404,
      'NOT_FOUND',
    );
    const read = await graphql(service.url, ATTEMPTS_QUERY, { id: endpoint.failing, first: 10 }, stranger);
    expect(read.body.data.webhookEndpoint).toBeNull();
    expect(read.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual(['NOT_FOUND']);
  });

  it('answers the same in GraphQL: WebhookEndpoint.attempts, newest first, paged by its cursors', async () => {
    const rest = (await restPages(endpoint.failing, 100))[0].data;
    const seen: Attempt[] = [];
    let after: string | null = null;
    const pageInfos: Array<{ hasNextPage: boolean; hasPreviousPage: boolean }> = [];
    do {
      const read = await graphql(service.url, ATTEMPTS_QUERY, { id: endpoint.failing, first: 4, after }, token);
      expect(read.body.errors, read.text).toBeUndefined();
      const connection = read.body.data.webhookEndpoint.attempts;
      seen.push(...connection.edges.map((edge: { node: Attempt }) => edge.node));
      pageInfos.push({ hasNextPage: connection.pageInfo.hasNextPage, hasPreviousPage: connection.pageInfo.hasPreviousPage });
      expect(connection.pageInfo.startCursor).toBe(connection.edges[0].cursor);
      after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
    } while (after);
    expect(pageInfos).toEqual([
      { hasNextPage: true, hasPreviousPage: false },
      { hasNextPage: false, hasPreviousPage: true },
    ]);
    expect(seen).toEqual(rest);
    // An endpoint of a list reaches its log the same way.
    const listed = await graphql(
      service.url,
      `query ($organizationId: ID!) {
        webhookEndpoints(organizationId: $organizationId, first: 10) { edges { node { id attempts(first: 100) { edges { node { id } } } } } }
      }`,
      { organizationId: organizationOf[endpoint.failing] },
      token,
    );
    expect(listed.body.errors, listed.text).toBeUndefined();
    const [failing] = listed.body.data.webhookEndpoints.edges;
    expect(failing.node.id).toBe(endpoint.failing);
    expect(failing.node.attempts.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual(rest.map((attempt) => attempt.id));
  });

  it('allows in the database exactly the error classes of attempt-log.ts', async () => {
    const [{ definition }] = await service.sql<{ definition: string }>(
      `select pg_get_constraintdef(c.oid) as definition from pg_constraint c
       where c.conrelid = 'webhook_attempt'::regclass and c.conname = 'webhook_attempt_error_check'`,
    );
    expect([...definition.matchAll(/'([^']+)'::text/g)].map((match) => match[1])).toEqual([...ATTEMPT_ERRORS]);
  });

  it('goes with its events at retention (by cascade from the delivery)', async () => {
    await attemptsMade(endpoint.refused, 2);
    const [event] = await service.sql<{ event_id: string }>('select event_id from webhook_delivery where endpoint_id = $1 limit 1', [
      endpoint.refused,
    ]);
    // What retention's statement does (event-retention.ts): delete the event.
    await service.sql('delete from event where id = $1', [event.event_id]);
    expect(await loggedAttempts(endpoint.refused)).toEqual([]);
    const [page] = await restPages(endpoint.refused, 20);
    expect(page.data).toEqual([]);
  });
});
