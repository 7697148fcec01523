import { describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';

/**
 * Webhook endpoints' URLs in production (contract section 11), through the operation core:
 * refused with 400 on the field. Delivery over HTTP: test/e2e/webhooks.
 */
const CREATE_ENDPOINT = `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id } }`;

describe('webhook URLs in production', () => {
  const service = useInProcessService({ NODE_ENV: 'production' });

  it('refuses http, private and loopback addresses, and names that resolve to them, with 400', async () => {
    const token = await service.token({ sub: 'prod-hooks' });
    const root = await service.request('POST', '/api/v1/organization', { token, body: organizationBody() });
    for (const url of [
      'http://127.0.0.1/hooks',
      'https://10.0.0.1/hooks',
      'https://localhost/hooks',
      'https://[::1]/hooks',
      'https://169.254.169.254/latest',
    ]) {
      const response = await service.graphql(CREATE_ENDPOINT, { input: { url, organizationId: root.body.id } }, token);
      expect(response.status, url).toBe(400);
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ path: 'url' }] });
    }
  });
});
