import { describe, expect, it } from 'vitest';
import { organizationBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';

/**
 * Contract section 12, "Webhooks are fair between trees": what one tree may register, through
 * the operation core of two instances on one database (403 QUOTA_EXCEEDED, REST and GraphQL).
 * What a receiver and an event's deliveries may cost: test/e2e/webhook-limits.
 */
const CREATE_ENDPOINT = `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id } }`;

describe('webhook endpoints per tree (WEBHOOK_ENDPOINTS_PER_TREE)', () => {
  const env = { WEBHOOK_ENDPOINTS_PER_TREE: '3' };
  const first = useInProcessService(env);
  const second = useInProcessService(env, { sameDatabaseAs: first });
  const url = 'http://127.0.0.1:9/hooks';

  const liveEndpoints = async (organizationIds: string[]) =>
    (
      await first.sql<{ n: number }>(
        'select count(*)::int as n from webhook_endpoint where organization_id = any($1::uuid[]) and deleted_at is null',
        [organizationIds],
      )
    )[0].n;

  it('refuses the endpoint over the quota with 403 QUOTA_EXCEEDED, over REST and GraphQL, anywhere in the tree; a delete frees a place', async () => {
    const token = await first.token({ sub: 'endpoint-quota-owner' });
    const root = (await first.request('POST', '/api/v1/organization', { token, body: organizationBody() })).body.id as string;
    const child = (await first.request('POST', '/api/v1/organization', { token, body: organizationBody({ parentId: root }) })).body
      .id as string;
    const rest = (organizationId: string, on = first) =>
      on.request('POST', '/api/v1/webhook-endpoints', { token, body: { url, organizationId } });
    const viaGraphql = (organizationId: string) => second.graphql(CREATE_ENDPOINT, { input: { url, organizationId } }, token);

    const created = [await rest(root), await rest(child, second), await viaGraphql(child)];
    expect(created.map((response) => response.status)).toEqual([200, 200, 200]);

    const overRest = await rest(child);
    expect(overRest.status).toBe(403);
    expect(overRest.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(overRest.body).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      detail: 'This organization tree already has its quota of 3 webhook endpoints.',
    });
    const overGraphql = await viaGraphql(root);
    expect(overGraphql.status).toBe(403);
    expect(overGraphql.body.errors[0].extensions.code).toBe('QUOTA_EXCEEDED');
    expect(await liveEndpoints([root, child])).toBe(3);

    // Another tree has its own quota.
    const stranger = await first.token({ sub: 'endpoint-quota-other' });
    const elsewhere = (await first.request('POST', '/api/v1/organization', { token: stranger, body: organizationBody() })).body
      .id as string;
    expect(
      (await first.request('POST', '/api/v1/webhook-endpoints', { token: stranger, body: { url, organizationId: elsewhere } })).status,
    ).toBe(200);

    // A deleted endpoint no longer counts.
    const deleted = await first.request('DELETE', `/api/v1/webhook-endpoints/${created[0].body.id}`, { token });
    expect(deleted.status).toBe(204);
    expect((await rest(root)).status).toBe(200);
    expect((await rest(root)).status).toBe(403);
  });

  it('holds exactly under concurrent creates on two instances', async () => {
    const token = await first.token({ sub: 'endpoint-quota-racer' });
    const root = (await first.request('POST', '/api/v1/organization', { token, body: organizationBody() })).body.id as string;
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? first.graphql(CREATE_ENDPOINT, { input: { url, organizationId: root } }, token)
          : (i % 2 ? first : second).request('POST', '/api/v1/webhook-endpoints', { token, body: { url, organizationId: root } }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 403)).toHaveLength(9);
    expect(await liveEndpoints([root])).toBe(3);
    const [usage] = await first.sql<{ n: number }>('select webhook_endpoints::int as n from tree_usage where root_id = $1', [root]);
    expect(usage.n).toBe(3);
  });
});

describe('root organizations per sub (ORGANIZATION_ROOTS_PER_SUB)', () => {
  // Security review 3, H1: each root was a new share of the delivery capacity. A tenant's roots
  // are bounded now; the in-flight cap is lifted so that all 40 creates race.
  const env = { ORGANIZATION_ROOTS_PER_SUB: '5', RATE_LIMIT_CONCURRENT_REQUESTS: '0' };
  const first = useInProcessService(env);
  const second = useInProcessService(env, { sameDatabaseAs: first });
  const CREATE_ORGANIZATION = `mutation ($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }`;

  const roots = async (sub: string) =>
    (await first.sql<{ n: number }>('select count(*)::int as n from organization where owner_sub = $1 and parent_id is null', [sub]))[0].n;

  it('holds exactly under 40 concurrent root creates on two instances, over REST and GraphQL (403 QUOTA_EXCEEDED)', async () => {
    const sub = 'roots-racer';
    const token = await first.token({ sub });
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 3 === 0
          ? (i % 2 ? first : second).graphql(CREATE_ORGANIZATION, { input: organizationBody() }, token)
          : (i % 2 ? first : second).request('POST', '/api/v1/organization', { token, body: organizationBody() }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 403)).toHaveLength(35);
    expect(await roots(sub)).toBe(5);
    const [usage] = await first.sql<{ n: number }>('select roots::int as n from sub_usage where sub = $1', [sub]);
    expect(usage.n).toBe(5);

    const overRest = await first.request('POST', '/api/v1/organization', { token, body: organizationBody() });
    expect(overRest.status).toBe(403);
    expect(overRest.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(overRest.body).toMatchObject({ code: 'QUOTA_EXCEEDED', detail: 'This caller already has its quota of 5 root organizations.' });
    const overGraphql = await second.graphql(CREATE_ORGANIZATION, { input: organizationBody() }, token);
    expect(overGraphql.status).toBe(403);
    expect(overGraphql.body.errors[0].extensions.code).toBe('QUOTA_EXCEEDED');
    expect(overGraphql.body.errors[0].message).toBe('This caller already has its quota of 5 root organizations.');
    expect(overGraphql.body.data ?? null).toBeNull();
  });

  it('counts roots only, per sub: children under a root and another sub’s roots are not refused', async () => {
    const token = await first.token({ sub: 'roots-owner' });
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await first.request('POST', '/api/v1/organization', { token, body: organizationBody() }));
    expect(made.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    const root = made[0].body.id as string;
    // A child is no new tenant tree: the quota does not count it.
    const child = await second.request('POST', '/api/v1/organization', { token, body: organizationBody({ parentId: root }) });
    expect(child.status, child.text).toBe(200);
    const viaGraphql = await first.graphql(CREATE_ORGANIZATION, { input: organizationBody({ parentId: root }) }, token);
    expect(viaGraphql.body.errors).toBeUndefined();
    expect((await first.request('POST', '/api/v1/organization', { token, body: organizationBody() })).status).toBe(403);
    const stranger = await first.token({ sub: 'roots-stranger' });
    expect((await second.request('POST', '/api/v1/organization', { token: stranger, body: organizationBody() })).status).toBe(200);
  });
});
