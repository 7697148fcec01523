import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';
import { PLAIN_ROUTES } from '../../src/rest/audit-export.js';
import { openApiPath } from '../../src/rest/openapi.js';
import { REST_ROUTES } from '../../src/rest/routes.js';

describe('the OpenAPI document', () => {
  const service = useTestService();

  it('is served without a token and is a valid OpenAPI 3.1 document', async () => {
    const response = await request(service.url, 'GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // The paths are the route table's (issue 42): every route with its method, each with a summary, a tag and its errors.
    const routes = [...REST_ROUTES, ...PLAIN_ROUTES];
    expect(Object.keys(response.body.paths).sort()).toEqual([...new Set(routes.map((route) => openApiPath(route.path)))].sort());
    for (const route of routes) {
      const operation = response.body.paths[openApiPath(route.path)][route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toMatchObject({ summary: route.doc.summary, tags: [route.doc.tag] });
      expect(
        Object.keys(operation.responses).filter((status) => status.startsWith('4')),
        route.path,
      ).toContain('400');
    }
  });

  it('has request examples that succeed when sent as they are', async () => {
    const document = (await request(service.url, 'GET', '/api/v1/openapi.json')).body;
    const example = (path: string) => document.paths[path].post.requestBody.content['application/json'].examples.typical.value;
    const alice = await service.token({ sub: 'openapi-example' });
    const organization = await request(service.url, 'POST', '/api/v1/organization', {
      token: alice,
      body: example('/api/v1/organization'),
    });
    expect(organization.status, JSON.stringify(organization.body)).toBe(200);
    // The change's example, as a merge patch against the created version (both media types show the same one).
    const change = document.paths['/api/v1/organization/{id}'].patch.requestBody.content;
    expect(change['application/json'].examples.typical.value).toEqual(change['application/merge-patch+json'].examples.typical.value);
    const changed = await request(service.url, 'PATCH', `/api/v1/organization/${organization.body.id}`, {
      token: alice,
      body: change['application/merge-patch+json'].examples.typical.value,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': '"1"' },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(changed.body).toMatchObject({ version: 2, email: null, address: { line1: '200 Elm St', city: 'Springfield' } });
    expect(changed.body.address).not.toHaveProperty('suite');
    expect(changed.body.owners).toHaveLength(2);
    const actingForIt = await service.token({ sub: 'openapi-example', org: organization.body.id });
    const policy = await request(service.url, 'POST', '/api/v1/policy', { token: actingForIt, body: example('/api/v1/policy') });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const quote = await request(service.url, 'POST', '/api/v1/quote', { token: actingForIt, body: example('/api/v1/quote') });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    // The policy's life, each step with its example: cancelled a month in, then reinstated.
    const number = policy.body.number;
    const cancelled = await request(service.url, 'POST', `/api/v1/policy/${number}/cancellation`, {
      token: actingForIt,
      body: example('/api/v1/policy/{id}/cancellation'),
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.cancellation).toMatchObject({ method: 'short_rate' });
    const reinstated = await request(service.url, 'POST', `/api/v1/policy/${number}/reinstatement`, {
      token: actingForIt,
      body: example('/api/v1/policy/{id}/reinstatement'),
    });
    expect(reinstated.status, JSON.stringify(reinstated.body)).toBe(200);
    expect(reinstated.body).toMatchObject({ status: 'active', cancellation: null });
    // Then a new pet name and plan from the third billing date.
    const policyChanged = await request(service.url, 'POST', `/api/v1/policy/${number}/changes`, {
      token: actingForIt,
      body: example('/api/v1/policy/{id}/changes'),
    });
    expect(policyChanged.status, JSON.stringify(policyChanged.body)).toBe(200);
    expect(policyChanged.body.charges.filter((charge: { type: string }) => charge.type === 'premium').length).toBeGreaterThan(12);
    // Renewing: the create's `renewable` example ends within the window, and renews as sent on the plan the example names.
    const examples = (path: string) => document.paths[path].post.requestBody.content['application/json'].examples;
    const renewable = await request(service.url, 'POST', '/api/v1/policy', {
      token: actingForIt,
      body: examples('/api/v1/policy').renewable.value,
    });
    expect(renewable.status, JSON.stringify(renewable.body)).toBe(200);
    const renewed = await request(service.url, 'POST', `/api/v1/policy/${renewable.body.number}/renewal`, {
      token: actingForIt,
      body: example('/api/v1/policy/{id}/renewal'),
    });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.body).toMatchObject({ renewalOf: renewable.body.number, coverage: { slug: 'accident-illness-plus' } });
    // The second example ({}: the current plan) is refused as sent only because the policy was just renewed.
    const again = await request(service.url, 'POST', `/api/v1/policy/${renewable.body.number}/renewal`, {
      token: actingForIt,
      body: examples('/api/v1/policy/{id}/renewal').currentPlan.value,
    });
    expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE']);
    // Issuing names a made-up quote: it shows the shape, and is a 404 as sent.
    const issued = await request(service.url, 'POST', '/api/v1/policy', {
      token: actingForIt,
      body: document.paths['/api/v1/policy'].post.requestBody.content['application/json'].examples.issueQuote.value,
    });
    expect(issued.status).toBe(404);
  });

  it("has request examples that succeed with the start-up banner's kind of token, sub only, the policy and quote ones naming the organization as the REST reference page fills it in (issue 25, F6)", async () => {
    const document = (await request(service.url, 'GET', '/api/v1/openapi.json')).body;
    const examples = (path: string) => document.paths[path].post.requestBody.content['application/json'].examples;
    const dev = await service.token({ sub: 'openapi-dev' });
    const organization = await request(service.url, 'POST', '/api/v1/organization', {
      token: dev,
      body: examples('/api/v1/organization').typical.value,
    });
    expect(organization.status, JSON.stringify(organization.body)).toBe(200);
    // As sent, without an organization, a sub-only token is told what is missing; the descriptions say so.
    const bare = await request(service.url, 'POST', '/api/v1/policy', { token: dev, body: examples('/api/v1/policy').typical.value });
    expect([bare.status, bare.body.code]).toEqual([400, 'BAD_USER_INPUT']);
    for (const path of ['/api/v1/policy', '/api/v1/quote'])
      expect(document.paths[path].post.description).toContain('on /api/v1/docs, run the organization create first');
    // What the page sends once "Try it out" has created the organization (developer-pages.ts).
    const named = (value: object) => ({ organizationId: organization.body.id, ...value });
    const policy = await request(service.url, 'POST', '/api/v1/policy', {
      token: dev,
      body: named(examples('/api/v1/policy').typical.value),
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    const quote = await request(service.url, 'POST', '/api/v1/quote', { token: dev, body: named(examples('/api/v1/quote').typical.value) });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    const renewable = await request(service.url, 'POST', '/api/v1/policy', {
      token: dev,
      body: named(examples('/api/v1/policy').renewable.value),
    });
    expect(renewable.status, JSON.stringify(renewable.body)).toBe(200);
    // The rest name a policy by number: the token needs no claim for them.
    const number = policy.body.number;
    for (const [path, kind] of [
      // Two months paid on the day the example starts, then one paid back (contract section 19).
      [`/api/v1/policy/${number}/payments`, '/api/v1/policy/{id}/payments'],
      [`/api/v1/policy/${number}/refunds`, '/api/v1/policy/{id}/refunds'],
      [`/api/v1/policy/${number}/cancellation`, '/api/v1/policy/{id}/cancellation'],
      [`/api/v1/policy/${number}/reinstatement`, '/api/v1/policy/{id}/reinstatement'],
      [`/api/v1/policy/${number}/changes`, '/api/v1/policy/{id}/changes'],
      [`/api/v1/policy/${renewable.body.number}/renewal`, '/api/v1/policy/{id}/renewal'],
    ]) {
      const answer = await request(service.url, 'POST', path, { token: dev, body: examples(kind).typical.value });
      expect(answer.status, `${kind}: ${JSON.stringify(answer.body)}`).toBe(200);
    }
    const change =
      document.paths['/api/v1/organization/{id}'].patch.requestBody.content['application/merge-patch+json'].examples.typical.value;
    const changed = await request(service.url, 'PATCH', `/api/v1/organization/${organization.body.id}`, {
      token: dev,
      body: change,
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': '"1"' },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  });

  it('says what the server does with unknown body fields: policy bodies and an organization change closed (400), organization creates open (ignored)', async () => {
    const { components, paths } = (await request(service.url, 'GET', '/api/v1/openapi.json')).body;
    const closed = [
      'CreatePolicyRequest',
      'CreateQuoteRequest',
      'ChangePolicyRequest',
      'CancelPolicyRequest',
      'ReinstatePolicyRequest',
      'RenewPolicyRequest',
      'UpdateOrganizationRequest',
    ];
    for (const name of closed) expect(components.schemas[name].additionalProperties, name).toBe(false);
    for (const name of ['CreateOrganizationRequest', 'CreateWebhookEndpointRequest']) {
      expect([undefined, true], name).toContain(components.schemas[name].additionalProperties);
    }
    expect(components.schemas.CreateOrganizationRequest.properties.bankAccounts.items.additionalProperties).toBeUndefined();
    expect(components.schemas.CreateOrganizationRequest.properties.owners.items.additionalProperties).toBeUndefined();
    expect(components.schemas.AddressInput.additionalProperties).toBe(true);

    // The server, each body with one unknown field: every closed body refuses it by name, the open ones accept it.
    const root = await request(service.url, 'POST', '/api/v1/organization', {
      token: await service.token({ sub: 'openapi-typo' }),
      body: {
        legalName: 'Typo LLC',
        legalType: 'llc',
        taxId: '12-3456789',
        organisationId: 'x',
        owners: [{ firstname: 'A', lastname: 'B', emial: 'x' }],
      },
    });
    expect(root.status).toBe(200);
    const token = await service.token({ sub: 'openapi-typo', org: root.body.id });
    const examples = (path: string) => paths[path].post.requestBody.content['application/json'].examples.typical.value;
    const policy = await request(service.url, 'POST', '/api/v1/policy', { token, body: examples('/api/v1/policy') });
    expect(policy.status).toBe(200);
    const bodies: Array<[string, string, Record<string, unknown>]> = [
      ['/api/v1/policy', 'CreatePolicyRequest', examples('/api/v1/policy')],
      ['/api/v1/quote', 'CreateQuoteRequest', examples('/api/v1/quote')],
      [`/api/v1/policy/${policy.body.number}/changes`, 'ChangePolicyRequest', examples('/api/v1/policy/{id}/changes')],
      [`/api/v1/policy/${policy.body.number}/cancellation`, 'CancelPolicyRequest', examples('/api/v1/policy/{id}/cancellation')],
      [`/api/v1/policy/${policy.body.number}/reinstatement`, 'ReinstatePolicyRequest', {}],
      [`/api/v1/policy/${policy.body.number}/renewal`, 'RenewPolicyRequest', {}],
    ];
    for (const [path, schemaName, body] of bodies) {
      const refused = await request(service.url, 'POST', path, { token, body: { ...body, colour: 'red' } });
      expect(refused.status, `${schemaName}: ${refused.text}`).toBe(400);
      expect(refused.body.errors, schemaName).toContainEqual({ path: 'colour', message: 'is not a field of this request' });
    }
    // A change's typo is the whole change lost (contract section 18): refused, like a policy body's.
    const changed = await request(service.url, 'PATCH', `/api/v1/organization/${root.body.id}`, {
      token,
      body: { description: 'x', colour: 'red' },
    });
    expect(changed.status, changed.text).toBe(400);
    expect(changed.body.errors).toEqual([{ path: 'colour', message: 'is not a field of this request' }]);
  });
});
