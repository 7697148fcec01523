import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, graphql, request } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';
import { eventually } from '../support/eventually.js';

/**
 * Contract section 22: an endpoint's secret rotated with a grace. A real receiver verifying with
 * `standardwebhooks` keeps verifying with the old secret until the grace ends, and with the new
 * one from the rotation on; after the grace only the new one verifies.
 */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Whether `secret` verifies the delivery, as a receiver's code would check it. */
function verifies(secret: string, delivery: Received): boolean {
  try {
    new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

describe('webhook secret rotation (contract section 22)', () => {
  const service = useTestService();
  const received: Received[] = [];
  let hooks: Server;
  let token: string;
  let organizationId: string;
  let endpointId: string;
  let first: string;

  beforeAll(async () => {
    hooks = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.end();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    ({ token, organizationId } = await createRootOrganization(service));
    const endpoint = await request(service.url, 'POST', '/api/v1/webhook-endpoints', {
      token,
      body: { url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`, events: ['organization.updated'] },
    });
    expect(endpoint.status, endpoint.text).toBe(200);
    endpointId = endpoint.body.id;
    first = endpoint.body.secret;
  });
  afterAll(() => new Promise<void>((resolve) => hooks?.close(() => resolve())));

  /** An event the endpoint receives, and its delivery once it arrives. */
  const delivered = async (description: string): Promise<Received> => {
    const changed = await request(service.url, 'PATCH', `/api/v1/organization/${organizationId}`, {
      token,
      body: { description },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(changed.status, changed.text).toBe(200);
    return eventually(() => received.find((delivery) => delivery.body.includes(description)), `the delivery of "${description}"`);
  };

  it('signs with both secrets during the grace, then with the new one alone', async () => {
    const before = await delivered('before the rotation');
    expect(verifies(first, before)).toBe(true);

    const rotated = await request(service.url, 'POST', `/api/v1/webhook-endpoints/${endpointId}/secret-rotation`, {
      token,
      body: { graceSeconds: 3 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    expect(Object.keys(rotated.body)).toEqual(['secret']);
    const second: string = rotated.body.secret;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);

    const during = await delivered('during the grace');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifies(second, during)).toBe(true);
    expect(verifies(first, during)).toBe(true);

    await new Promise((resolve) => setTimeout(resolve, 3500));
    const after = await delivered('after the grace');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifies(second, after)).toBe(true);
    expect(verifies(first, after)).toBe(false);

    // The rotation is in the audit log, never its secrets.
    const entries = await service.sql<{ action: string; text: string }>(
      `select action, a::text as text from audit_entry a where action = 'webhook_endpoint.rotate_secret'`,
    );
    expect(entries.map((entry) => entry.action)).toEqual(['webhook_endpoint.rotate_secret']);
    expect(entries[0].text).not.toContain(second.slice(6));
  });

  it('over GraphQL too; refuses a grace out of range, and an endpoint out of reach is 404', async () => {
    const rotated = await graphql(
      service.url,
      'mutation ($id: ID!) { rotateWebhookEndpointSecret(id: $id, input: { graceSeconds: 0 }) { secret } }',
      { id: endpointId },
      token,
    );
    expect(rotated.body.errors, rotated.text).toBeUndefined();
    expect(rotated.body.data.rotateWebhookEndpointSecret.secret).toMatch(/^whsec_/);
    const tooLong = await request(service.url, 'POST', `/api/v1/webhook-endpoints/${endpointId}/secret-rotation`, {
      token,
      body: { graceSeconds: 604_801 },
    });
    expectProblem(tooLong, 400, 'BAD_USER_INPUT');
    const stranger = await service.token({ sub: 'mallory' });
    const foreign = await request(service.url, 'POST', `/api/v1/webhook-endpoints/${endpointId}/secret-rotation`, {
      token: stranger,
      body: {},
    });
    expectProblem(foreign, 404, 'NOT_FOUND');
  });
});
