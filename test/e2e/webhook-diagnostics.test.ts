import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * Webhook diagnostics (issue 25 item 6, review F9): a failed attempt is logged at WARN with what
 * an operator needs to find it (endpoint id, host, event id, delivery id, attempt, status or
 * error), and never the endpoint's URL, whose path or query can hold a credential.
 */
describe('a failed webhook attempt in the log', () => {
  const lines: string[] = [];
  const service = useTestService(
    { WEBHOOK_RETRY_BASE_SECONDS: '1', WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_TIMEOUT_SECONDS: '2' },
    { logger: createLogger('info', { destination: { write: (line: string) => void lines.push(line) } }) },
  );
  let failing: Server;
  let port: number;

  beforeAll(async () => {
    failing = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = 503;
        res.end();
      });
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    port = (failing.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => failing?.close(resolve)));

  it('is a WARN line with the endpoint id and host, the event id, the delivery id, the attempt and the status; no URL', async () => {
    const token = await service.token({ sub: 'diagnosed' });
    const organization = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationBody({ legalName: 'Diagnosed' }),
    });
    expect(organization.status).toBe(200);
    const endpoint = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: {
        url: `http://127.0.0.1:${port}/receiver-path?token=query-credential`,
        organizationId: organization.body.id,
        events: ['policy.created'],
      },
    });
    expect(endpoint.status, endpoint.text).toBe(200);
    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId: organization.body.id }),
    });
    expect(policy.status, policy.text).toBe(200);
    const [event] = await service.sql<{ id: string }>(`select id from event where type = 'policy.created'`);
    const [delivery] = await service.sql<{ id: string }>('select id from webhook_delivery where event_id = $1', [event.id]);

    const failures = () => lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'webhook attempt failed');
    const end = Date.now() + 30_000;
    while (failures().length < 2 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = failures();
    expect(logged.map((line) => line.attempt)).toEqual([1, 2]);
    for (const line of logged) {
      expect(line).toMatchObject({
        level: 40,
        endpointId: endpoint.body.id,
        host: `127.0.0.1:${port}`,
        eventId: event.id,
        deliveryId: delivery.id,
        status: 503,
      });
    }
    // The first is retried, the last (WEBHOOK_MAX_ATTEMPTS) is the end of it.
    expect(logged.map((line) => line.result)).toEqual(['retrying', 'failed']);
    const written = lines.join('\n');
    expect(written).not.toContain('query-credential');
    expect(written).not.toContain('receiver-path');
  });
});
