import { describe, expect, it } from 'vitest';
import { PLAIN_ROUTES } from '../../src/rest/audit-export.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

/**
 * A misspelling of `name` one edit away (its last two letters swapped; a one-letter name, a search's
 * `q`, doubled), which the route suggests back.
 */
const misspelt = (name: string) => (name.length < 2 ? name.repeat(2) : `${name.slice(0, -2)}${name.at(-1)}${name.at(-2)}`);
const notAParameter = (path: string, meant?: string) => ({
  path,
  message: `is not a parameter of this request${meant ? `; did you mean "${meant}"?` : ''}`,
});

/**
 * Contract section 18, "No silent typos anywhere", over HTTP (issue 42, F20 and F21 of the third
 * review with real clients): a query parameter a route does not take is 400 naming it, before
 * anything runs, on every route (the cases are made from the route table, so a new route is
 * covered); an organization change with a misspelt field is 400, and nothing is written.
 */
describe('no silent typos (contract section 18)', () => {
  const service = useTestService();

  it('every route refuses a misspelt query parameter by name, suggesting the one it takes; a route that takes none, any', async () => {
    const token = await service.token({ sub: 'typist' });
    const routes = [...REST_ROUTES, ...PLAIN_ROUTES];
    // The id is any: the parameters are checked before the path is read (a policy's number, a record's uuid).
    const cases = routes.flatMap((route) => {
      const path = route.path.replace(':id', '5f0c6f3e-8a5b-4a43-9df1-3c1c7b5a2f10');
      const declared = (route.query ?? []).map((parameter) => parameter.name);
      if (declared.length === 0) return [{ route, url: `${path}?typo=1`, expected: notAParameter('typo') }];
      return declared.map((name) => ({ route, url: `${path}?${misspelt(name)}=1`, expected: notAParameter(misspelt(name), name) }));
    });
    expect(cases.length).toBeGreaterThan(routes.length);
    for (const { route, url, expected } of cases) {
      const answer = await request(service.url, route.method, url, { token, body: route.method === 'GET' ? undefined : {} });
      expect([answer.status, answer.body.code], `${route.method} ${url}: ${answer.text}`).toEqual([400, 'BAD_USER_INPUT']);
      expect(answer.body.errors, `${route.method} ${url}`).toEqual([expected]);
    }
  });

  it('GET /api/v1/policy?staus=cancelled is 400 "did you mean status", not every policy', async () => {
    const alice = await service.token({ sub: 'typo-lister' });
    const root = await request(service.url, 'POST', '/api/v1/organization', { token: alice, body: organizationBody() });
    const token = await service.token({ sub: 'typo-lister', org: root.body.id });
    expect((await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody() })).status).toBe(200);

    const typo = await request(service.url, 'GET', `/api/v1/policy?organizationId=${root.body.id}&staus=cancelled`, { token });
    expect(typo.status).toBe(400);
    expect(typo.body).toMatchObject({
      code: 'BAD_USER_INPUT',
      detail: 'Invalid staus: is not a parameter of this request; did you mean "status"?',
      errors: [notAParameter('staus', 'status')],
    });
    // Letters are compared case-insensitively; every unknown parameter is listed at once, in the order sent.
    const two = await request(service.url, 'GET', '/api/v1/policy?Status=cancelled&petName=Biscuit', { token });
    expect(two.body.errors).toEqual([notAParameter('Status', 'status'), notAParameter('petName')]);
    // The right spelling filters: no cancelled policy here.
    const right = await request(service.url, 'GET', `/api/v1/policy?organizationId=${root.body.id}&status=cancelled`, { token });
    expect([right.status, right.body.data]).toEqual([200, []]);

    // A list's page parameters belong to lists; a repeated parameter is a parameter given twice, not an unknown one.
    const onRead = await request(service.url, 'GET', '/api/v1/policy/1?limit=5', { token });
    expect(onRead.body.errors).toEqual([notAParameter('limit')]);
    const repeated = await request(service.url, 'GET', '/api/v1/events?type=policy.created&type=quote.created', { token });
    expect([repeated.status, repeated.body.errors]).toEqual([400, [{ path: 'type', message: 'must be given once, as text' }]]);
    const listed = await request(service.url, 'GET', '/api/v1/events?type=policy.created,quote.created&limit=5', { token });
    expect(listed.status, listed.text).toBe(200);
  });

  it('an organization change with a misspelt field is 400 "did you mean", and changes nothing', async () => {
    const token = await service.token({ sub: 'typo-changer' });
    const created = await request(service.url, 'POST', '/api/v1/organization', {
      token,
      body: organizationBody({ email: 'billing@paws.example', ignoredOnCreate: true }),
    });
    expect(created.status, created.text).toBe(200);
    const change = (body: object) =>
      request(service.url, 'PATCH', `/api/v1/organization/${created.body.id}`, {
        token,
        body,
        headers: { 'content-type': 'application/merge-patch+json', 'if-match': '"1"' },
      });

    const typo = await change({ emial: 'typo@paws.example' });
    expect(typo.status, typo.text).toBe(400);
    expect(typo.body.errors).toEqual([{ path: 'emial', message: 'is not a field of this request; did you mean "email"?' }]);
    // Inside an owner too (the list is replaced whole: a dropped field would be lost), with the refused fields' own messages.
    const nested = await change({ parentId: null, owners: [{ firstname: 'Ada', lastname: 'L', ownrship: 50 }] });
    expect(nested.body.errors).toEqual([
      { path: 'parentId', message: 'cannot be changed: an organization stays under the parent it was created under' },
      { path: 'owners[0].ownrship', message: 'is not a field of this request; did you mean "ownership"?' },
    ]);
    const read = await request(service.url, 'GET', `/api/v1/organization/${created.body.id}`, { token });
    expect(read.body).toMatchObject({ version: 1, email: 'billing@paws.example', owners: [] });
    expect(read.headers.get('etag')).toBe('"1"');
    const events = await service.sql("select 1 from event where type = 'organization.updated' and organization_id = $1", [created.body.id]);
    expect(events).toHaveLength(0);

    // An address keeps every property (contract section 4): an extra one there is a value, not a typo.
    const right = await change({ email: 'new@paws.example', address: { city: 'Springfield', dock: 'B' } });
    expect(right.status, right.text).toBe(200);
    expect(right.body).toMatchObject({ version: 2, email: 'new@paws.example', address: { city: 'Springfield', dock: 'B' } });

    // GraphQL refuses it too: an input type has no field it does not declare.
    const viaGraphql = await graphql(
      service.url,
      'mutation ($id: ID!) { updateOrganization(id: $id, input: { emial: "x" }) { version } }',
      { id: created.body.id },
      token,
    );
    expect(viaGraphql.body.errors[0].message).toContain('"emial" is not defined by type "UpdateOrganizationInput"');
    expect(viaGraphql.body.errors[0].message).toContain('"email"');
  });
});
