import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * Property: whatever odd value lands in whatever field of a create body, the service answers
 * without a 5xx; a 4xx is problem+json with a code; and a refused create leaves no row behind.
 * Through the operation core in process: the bodies are JSON text parsed as the host parses them.
 */
const oddValue = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constant(''),
  fc.constant('x'.repeat(5000)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\ud800', '\n', '\t'), maxLength: 10 }),
  fc.string({ unit: fc.constantFrom('🐾', '👩‍👩‍👧', '東', 'é', '\u200d', '𝒳'), maxLength: 20 }),
  fc.constantFrom(
    '2026-02-30',
    '0000-00-00',
    '9999-12-31',
    '2026-01-01T00:00:00Z',
    '1e3',
    '-1',
    '9007199254740993',
    "'; drop table policy; --",
    '__proto__',
  ),
  fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { maxLength: 5 }),
  fc.array(fc.array(fc.array(fc.integer(), { maxLength: 2 }), { maxLength: 2 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxKeys: 4 }),
  fc.constant({ __proto__: { polluted: true } }),
);

// Extras named like object machinery too (security review 2, L1: `constructor` was a 500).
const ADDRESS_FIELDS = ['line1', 'line2', 'division', 'city', 'postal', 'country', 'extra', 'constructor', 'prototype', '__proto__'];
const ORGANIZATION_FIELDS = [
  'name',
  'description',
  'logo',
  'type',
  'descriptor',
  'legalName',
  'legalType',
  'taxId',
  'phone',
  'email',
  'website',
  'address',
  'bankAccounts',
  'owners',
  'parentId',
  'unknownField',
  ...ADDRESS_FIELDS.map((field) => `address.${field}`),
  'bankAccounts.0',
  'bankAccounts.0.nickname',
  'bankAccounts.0.routing',
  'bankAccounts.0.account',
  'owners.0',
  'owners.1',
  'owners.0.firstname',
  'owners.0.lastname',
  'owners.0.birthdate',
  'owners.0.taxId',
  'owners.0.email',
  'owners.0.phone',
  'owners.0.ownership',
  'owners.0.address',
  ...ADDRESS_FIELDS.map((field) => `owners.0.address.${field}`),
];
const POLICY_FIELDS = [
  'internalID',
  'number',
  'cvc',
  'ownerFirstname',
  'ownerLastname',
  'ownerDOB',
  'petName',
  'petDOB',
  'effectiveDate',
  'expirationDate',
  'coverageSlug',
  'organizationId',
  'unknownField',
];

const fullOrganization = () =>
  organizationBody({
    address: { line1: '1 Main St', city: 'Austin' },
    bankAccounts: [{ routing: '110000000', account: '000123456789' }],
    owners: [{ firstname: 'Ada', lastname: 'L', ownership: 50, address: { city: 'Austin' } }],
  });

/** Sets `value` at a dotted path (numbers index arrays), building what is missing. */
function setPath(target: Record<string, any>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: any = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = /^\d+$/.test(key) ? [] : {};
    node = node[key];
  }
  // A copy: fast-check hands out the same constant objects again, and a later change through
  // one of them would otherwise alter (and could make cyclic) the value of every later run.
  // Defined, not assigned: `__proto__` must become a property the JSON body carries.
  Object.defineProperty(node, keys[keys.length - 1], {
    value: structuredClone(value),
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

describe('odd input (property-based)', () => {
  // Hundreds of creates a minute from one caller: the per-caller limits are off here.
  const service = useInProcessService({ RATE_LIMIT_CREATES_PER_MINUTE: '0', RATE_LIMIT_REQUESTS_PER_MINUTE: '0' });
  let token: string;
  let rootId: string;

  beforeAll(async () => {
    ({ token, organizationId: rootId } = await createRootOrganization(service));
  });

  const rowCount = async () =>
    (
      await service.sql<{ n: string }>(
        `select (select count(*) from organization) + (select count(*) from owner) + (select count(*) from bank_account)
              + (select count(*) from policy) + (select count(*) from charge) as n`,
      )
    )[0].n;

  const mutations = (fields: string[]) => fc.array(fc.tuple(fc.constantFrom(...fields), oddValue), { minLength: 1, maxLength: 4 });

  async function expectSafe(path: string, body: unknown) {
    const before = await rowCount();
    const response = await service.request('POST', path, { token, body: JSON.stringify(body) ?? 'null' });
    expect(response.status, response.text).toBeLessThan(500);
    if (response.status >= 400) {
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(typeof response.body.code).toBe('string');
      expect(await rowCount()).toBe(before);
    }
  }

  it('REST organization create: never a 5xx, refusals are problems and write nothing', async () => {
    await fc.assert(
      fc.asyncProperty(mutations(ORGANIZATION_FIELDS), async (changes) => {
        const body = fullOrganization();
        for (const [path, value] of changes) setPath(body, path, value);
        await expectSafe('/api/v1/organization', body);
      }),
      { numRuns: 300 },
    );
  });

  it('REST policy create: never a 5xx, refusals are problems and write nothing', async () => {
    await fc.assert(
      fc.asyncProperty(mutations(POLICY_FIELDS), async (changes) => {
        const body = policyBody({ cvc: '123' });
        for (const [path, value] of changes) setPath(body, path, value);
        await expectSafe('/api/v1/policy', body);
      }),
      { numRuns: 300 },
    );
  });

  it('REST: a whole body of odd JSON is refused cleanly', async () => {
    await fc.assert(
      fc.asyncProperty(oddValue, fc.constantFrom('/api/v1/organization', '/api/v1/policy'), async (value, path) => {
        await expectSafe(path, value);
      }),
      { numRuns: 60 },
    );
  });

  it('GraphQL: the same odd inputs as variables never give a 5xx and errors carry codes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), mutations([...ORGANIZATION_FIELDS, ...POLICY_FIELDS]), async (isPolicy, changes) => {
        const input: Record<string, any> = isPolicy ? policyBody() : fullOrganization();
        for (const [path, value] of changes) setPath(input, path, value);
        const mutation = isPolicy
          ? 'mutation ($input: CreatePolicyInput!) { createPolicy(input: $input) { number } }'
          : 'mutation ($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }';
        const before = await rowCount();
        const response = await service.graphql(mutation, { input }, token);
        expect(response.status, response.text).toBeLessThan(500);
        if (response.body.errors) {
          for (const error of response.body.errors) expect(typeof error.extensions?.code).toBe('string');
          expect(await rowCount()).toBe(before);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('GraphQL: odd ids, page sizes and cursors for node, viewer.organizations and connections never give a 5xx', async () => {
    const cursor = fc.oneof(
      oddValue,
      fc.string({ maxLength: 30 }).map((text) => Buffer.from(text).toString('base64url')),
      fc.bigInt({ min: 0n, max: 10n ** 25n }).map((n) => Buffer.from(`organization:${n}`).toString('base64url')),
      // A search's cursor (contract section 23): its rank and position.
      fc
        .tuple(
          fc.constantFrom('policy-search', 'organization-search'),
          fc.integer({ min: -2, max: 20_000 }),
          fc.bigInt({ min: 0n, max: 10n ** 25n }),
        )
        .map(([kind, rank, n]) => Buffer.from(`${kind}:${rank}:${n}`).toString('base64url')),
    );
    const QUERIES = [
      'query ($id: ID!) { node(id: $id) { id } }',
      'query ($first: Int!, $after: String) { viewer { organizations(first: $first, after: $after) { pageInfo { hasNextPage startCursor } } } }',
      'query ($id: ID!, $first: Int!, $after: String) { organization(id: $id) { children(first: $first, after: $after) { pageInfo { hasPreviousPage } } } }',
      'query ($id: ID!, $first: Int!, $after: String, $all: Boolean) { organization(id: $id) { policies(first: $first, after: $after, includeDescendants: $all) { edges { node { id } } } } }',
      // The searches: odd text as q, and odd ids as their subtree.
      'query ($id: String!, $first: Int!, $after: String) { viewer { searchPolicies(q: $id, first: $first, after: $after) { edges { node { id } } } } }',
      'query ($id: String!, $first: Int!, $after: String) { viewer { searchOrganizations(q: $id, first: $first, after: $after) { edges { node { id } } } } }',
      'query ($id: ID!, $first: Int!, $after: String) { viewer { searchPolicies(q: "bisc", organizationId: $id, first: $first, effectiveFrom: $after) { edges { node { id } } } } }',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...QUERIES),
        fc.oneof(oddValue, fc.constant('root')),
        fc.oneof(oddValue, fc.integer({ min: -5, max: 200 })),
        cursor,
        async (query, id, first, after) => {
          const response = await service.graphql(
            query,
            { id: id === 'root' ? rootId : id, first, after, all: first === 0 ? null : typeof first === 'number' && first % 2 === 0 },
            token,
          );
          expect(response.status, response.text).toBeLessThan(500);
          for (const error of response.body.errors ?? []) expect(typeof error.extensions?.code, response.text).toBe('string');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('REST lists: odd query parameters never give a 5xx, and refusals are problems with a code', async () => {
    const parameter = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom('root', 'true', 'false', '0', '1', '100', '101', '-1', '1e2', '%', '%00', '%ZZ', '9007199254740993', '__proto__'),
      fc.bigInt({ min: 0n, max: 10n ** 25n }).map((n) => Buffer.from(`policy:${n}`).toString('base64url')),
    );
    const NAMES = [
      'organizationId',
      'parentId',
      'includeDescendants',
      'limit',
      'after',
      'other',
      'limit[]',
      'after[x]',
      'q',
      'q',
      'internalID',
    ];
    // The filters (contract section 23), and a search's query.
    NAMES.push('status', 'coverageSlug', 'billingStatus', 'effectiveFrom', 'effectiveTo');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/v1/policy', '/api/v1/organization'),
        fc.array(fc.tuple(fc.constantFrom(...NAMES), parameter), { maxLength: 5 }),
        async (path, parameters) => {
          const query = parameters
            .map(
              ([name, value]) =>
                `${encodeURIComponent(name)}=${value === 'root' ? rootId : /^%/.test(value) ? value : encodeURIComponent(value)}`,
            )
            .join('&');
          const response = await service.request('GET', `${path}?${query}`, { token });
          expect(response.status, `${path}?${query} ${response.text}`).toBeLessThan(500);
          if (response.status >= 400) {
            expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            expect(typeof response.body.code).toBe('string');
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
