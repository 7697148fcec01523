import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildServiceSchema } from '../../src/graphql-server/schema.js';
import { declaredWrites, type WriteDeclaration } from '../../src/graphql/write.js';
import { REST_ROUTES } from '../../src/rest/routes.js';
import type { RestRoute } from '../../src/rest/route-entry.js';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { request, type TestResponse } from '../support/http.js';
import { day } from '../support/policy-lifecycle.js';
import { expectRateLimited } from '../support/rate-limit-fields.js';
import { useTestService } from '../support/test-service.js';

/**
 * Issue 37 item 2 (security review 3, H2): every mutation spends the budget its field declares
 * (graphql/write.ts), and its REST twin spends exactly the same. Generated from the declarations:
 * for each declared mutation, the REST route whose document runs it, and that same document sent
 * to `/graphql`. Each surface gets a fresh caller with a creates budget of LIMIT, sends the write
 * LIMIT + 1 times, and counts what was accepted before the 429.
 */
const LIMIT = 3;

/** A request for one mutation: the record its path names (REST) or its argument (GraphQL), and the body / `input`. */
interface Sample {
  record?: Record<string, string | number>;
  body?: Record<string, unknown>;
}

interface Setup {
  organizationId: string;
  hooksOrganizationId: string;
  /** A policy per surface: written to by that surface's caller only. */
  policies: Record<Surface, { change: number; cancel: number; reinstate: number; renew: number }>;
  endpoints: Record<Surface, string>;
  /** Endpoints whose secret is rotated again and again (the ones above are deleted). */
  rotated: Record<Surface, string>;
  /** An endpoint per surface that is changed again and again (the other one is deleted). */
  changedEndpoints: Record<Surface, string>;
  /** API keys per surface: one rotated again and again, one revoked. */
  keys: Record<Surface, { rotate: string; revoke: string }>;
  /** An endpoint per surface on the root, which receives every event of the tree: tested, redelivered to, recovered. */
  receiving: Record<Surface, string>;
  /** An event of the tree. */
  eventId: string;
}

type Surface = 'graphql' | 'rest';

/** One valid request per mutation (its first run succeeds); a mutation added without one fails the test. */
const SAMPLES: Record<string, (setup: Setup, surface: Surface) => Sample> = {
  createOrganization: () => ({ body: organizationBody() }),
  updateOrganization: (setup) => ({ record: { id: setup.organizationId }, body: { legalName: 'Renamed LLC' } }),
  createPolicy: () => ({ body: policyBody() }),
  createQuote: () => ({ body: policyBody() }),
  changePolicy: (setup, surface) => ({
    record: { number: setup.policies[surface].change },
    body: { effectiveDate: day(0), petName: 'Renamed' },
  }),
  cancelPolicy: (setup, surface) => ({
    record: { number: setup.policies[surface].cancel },
    body: { effectiveDate: day(0), reason: 'other' },
  }),
  reinstatePolicy: (setup, surface) => ({ record: { number: setup.policies[surface].reinstate }, body: {} }),
  renewPolicy: (setup, surface) => ({ record: { number: setup.policies[surface].renew }, body: {} }),
  // Contract section 19: later runs of the same reference are 409 CONFLICT, and spend the budget all the same.
  recordPayment: (setup, surface) => ({
    record: { number: setup.policies[surface].change },
    body: { amount: 100_000, reference: `budget-${surface}` },
  }),
  recordRefund: (setup, surface) => ({
    record: { number: setup.policies[surface].change },
    body: { amount: 1, reference: `budget-refund-${surface}` },
  }),
  createWebhookEndpoint: (setup) => ({ body: { organizationId: setup.hooksOrganizationId, url: 'http://127.0.0.1:9/hooks' } }),
  deleteWebhookEndpoint: (setup, surface) => ({ record: { id: setup.endpoints[surface] } }),
  rotateWebhookEndpointSecret: (setup, surface) => ({ record: { id: setup.rotated[surface] }, body: { graceSeconds: 60 } }),
  updateWebhookEndpoint: (setup, surface) => ({ record: { id: setup.changedEndpoints[surface] }, body: { description: 'budget' } }),
  createApiKey: () => ({ body: { name: 'budget', scopes: ['policies:read'] } }),
  // A rotation leaves the old key working for its grace: the same key rotates again.
  rotateApiKey: (setup, surface) => ({ record: { id: setup.keys[surface].rotate }, body: { graceSeconds: 60 } }),
  // Later runs are 404 (already revoked), and spend the budget all the same.
  revokeApiKey: (setup, surface) => ({ record: { id: setup.keys[surface].revoke } }),
  sendTestWebhook: (setup, surface) => ({ record: { id: setup.receiving[surface] }, body: {} }),
  redeliverEvent: (setup, surface) => ({ record: { id: setup.eventId }, body: { endpointId: setup.receiving[surface] } }),
  recoverWebhookEndpoint: (setup, surface) => ({
    record: { id: setup.receiving[surface] },
    body: { since: new Date(Date.now() - 60_000).toISOString() },
  }),
};

/** A sample's GraphQL variables: the body is `input`, or, where the route's body fields are the mutation's arguments, those. */
function graphqlVariables(route: RestRoute, record: Record<string, unknown>, body: Record<string, unknown> | undefined) {
  if (body === undefined) return record;
  return 'bodyFields' in route && route.bodyFields !== undefined ? { ...record, ...body } : { ...record, input: body };
}

/** The one root field a REST route's document runs. */
function rootField(route: RestRoute): string | null {
  const operation = parse(route.document).definitions.find(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const [field] = operation?.selectionSet.selections ?? [];
  return operation?.operation === 'mutation' && field?.kind === Kind.FIELD ? field.name.value : null;
}

describe('every write spends the budget it declares, on /graphql and on its REST route alike', () => {
  // Setup writes through an instance without the creates limit; the limited instance shares its database.
  const setupService = useTestService({ RATE_LIMIT_CREATES_PER_MINUTE: '0' });
  const service = useTestService({ RATE_LIMIT_CREATES_PER_MINUTE: String(LIMIT) }, { sameDatabaseAs: setupService });
  let writes: ReadonlyMap<string, WriteDeclaration>;
  let setup: Setup;
  let ownerToken: string;

  const write = async (method: string, path: string, body: unknown) => {
    const response = await request(setupService.url, method, path, { token: ownerToken, body });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    writes = declaredWrites(await buildServiceSchema());
    const alice = await setupService.token({ sub: 'alice' });
    const root = await request(setupService.url, 'POST', '/api/v1/organization', { token: alice, body: organizationBody() });
    ownerToken = await setupService.token({ sub: 'alice', org: root.body.id });
    const hooks = await write('POST', '/api/v1/organization', organizationBody({ legalName: 'Hooks LLC' }));
    let number = 7000;
    const policy = async (endOffset: number) => {
      const created = await write(
        'POST',
        '/api/v1/policy',
        policyBody({ number: number++, effectiveDate: day(endOffset - 365), expirationDate: day(endOffset) }),
      );
      return created.number as number;
    };
    const policies = async () => {
      const reinstate = await policy(200);
      await write('POST', `/api/v1/policy/${reinstate}/cancellation`, { effectiveDate: day(0), reason: 'other' });
      const change = await policy(200);
      // Paid well ahead: a credit for recordRefund's sample to take a cent of at a time.
      await write('POST', `/api/v1/policy/${change}/payments`, { amount: 200_000, reference: 'setup-credit' });
      return { change, cancel: await policy(200), reinstate, renew: await policy(30) };
    };
    const endpoint = async () =>
      (await write('POST', '/api/v1/webhook-endpoints', { organizationId: hooks.id, url: 'http://127.0.0.1:9/hooks' })).id as string;
    const rootEndpoint = async () => (await write('POST', '/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks' })).id as string;
    const apiKey = async () => (await write('POST', '/api/v1/api-keys', { name: 'budget setup', scopes: ['policies:read'] })).id as string;
    const keys = async () => ({ rotate: await apiKey(), revoke: await apiKey() });
    setup = {
      organizationId: root.body.id,
      hooksOrganizationId: hooks.id,
      policies: { graphql: await policies(), rest: await policies() },
      endpoints: { graphql: await endpoint(), rest: await endpoint() },
      rotated: { graphql: await endpoint(), rest: await endpoint() },
      changedEndpoints: { graphql: await endpoint(), rest: await endpoint() },
      keys: { graphql: await keys(), rest: await keys() },
      receiving: { graphql: await rootEndpoint(), rest: await rootEndpoint() },
      eventId: (await request(setupService.url, 'GET', '/api/v1/events?limit=1', { token: ownerToken })).body.data[0].id,
    };
  });

  it('has a sample and a REST route for every declared mutation', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...writes.keys()].sort());
    const twins = REST_ROUTES.map(rootField).filter((field) => field !== null);
    expect([...twins].sort()).toEqual([...writes.keys()].sort());
  });

  it('accepts exactly the budget over GraphQL and over REST, then 429 on the creates budget', async () => {
    const runs = [...writes].flatMap(([field, declaration]) => {
      const route = REST_ROUTES.find((candidate) => rootField(candidate) === field)!;
      return (['graphql', 'rest'] as const).map(async (surface) => {
        const { record = {}, body } = SAMPLES[field](setup, surface);
        // A fresh caller for each mutation and surface, acting for the tree: its own budget of LIMIT.
        const token = await service.token({ sub: `budget-${field}-${surface}`, org: setup.organizationId });
        const send = (): Promise<TestResponse> =>
          surface === 'rest'
            ? request(service.url, route.method, route.path.replace(':id', String(Object.values(record)[0])), { token, body })
            : request(service.url, 'POST', '/graphql', {
                token,
                body: { query: route.document, variables: graphqlVariables(route, record, body) },
              });
        const answers: TestResponse[] = [];
        for (let i = 0; i <= LIMIT; i++) answers.push(await send());
        return { field, surface, declaration, answers };
      });
    });
    const results = await Promise.all(runs);
    for (const { field, surface, answers } of results) {
      const [first] = answers;
      // The sample is a real write: its first run succeeds.
      expect(first.status, `${field} over ${surface}: ${first.text}`).toBeLessThan(300);
      if (surface === 'graphql') expect(first.body.errors, `${field}: ${first.text}`).toBeUndefined();
    }
    // Every declaration spends one of its budget per run: LIMIT runs accepted, then the budget is spent.
    const accepted = (answers: TestResponse[]) => answers.findIndex((answer) => answer.status === 429);
    expect(
      results.map(({ field, surface, declaration, answers }) => `${field} ${surface} ${declaration.budget}: ${accepted(answers)}`),
    ).toEqual(results.map(({ field, surface }) => `${field} ${surface} creates: ${LIMIT}`));
    for (const { answers } of results) expectRateLimited(answers[LIMIT], 'creates');
  });
});
