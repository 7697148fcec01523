import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody, standalone } from '../support/fixtures.js';
import { CoveragesDocument, CreatePolicyDocument, PolicyDocument, type CreatePolicyInput } from '../generated/graphql.js';
import { execute, graphql, request } from '../support/http.js';
import { useTestService } from '../support/test-service.js';

const CVC = '9731';

/**
 * The REST policy answer's keys that contract section 18 lists, in its order (then section
 * 14's). A field added since may sit anywhere among them; that the answer has every field of
 * the type and no other key is checked by test/unit/read-models.test.ts and by the closed
 * OpenAPI schema every response of these tests is held to (test/support/openapi.ts).
 */
const CONTRACT_POLICY_KEYS = [
  ...[
    'id',
    'number',
    'internalID',
    'ownerFirstname',
    'ownerLastname',
    'ownerDOB',
    'petName',
    'petDOB',
    'effectiveDate',
    'expirationDate',
    'coverageSlug',
  ],
  ...['coverage', 'charges', 'organization', 'status', 'cancellation', 'renewalOf', 'renewedBy'],
];
const contractKeys = (body: object) => Object.keys(body).filter((key) => CONTRACT_POLICY_KEYS.includes(key));

/** Creating and reading policies over HTTP, REST and GraphQL. Refused and conflicting creates: test/in-process/creates. */
describe('policies', () => {
  // No webhook worker: its polling goes through the same gateway, and would be counted among a request's statements.
  const service = useTestService({ WEBHOOK_DELIVERY: 'false' });
  let token: string;
  let organization: { id: string; name: string; parentId: string | null };

  beforeAll(async () => {
    const root = await request(service.url, 'POST', '/api/v1/organization', {
      token: await service.token({ sub: 'alice' }),
      body: organizationBody({ name: 'Paws' }),
    });
    organization = { id: root.body.id, name: 'Paws', parentId: null };
    token = await service.token({ sub: 'alice', org: organization.id });
  });

  it('creates a policy and answers with the read shape (contract section 18), id included, without cvc', async () => {
    const body = policyBody({ internalID: 'ext-1', number: 5001, cvc: CVC, ownerDOB: '1990-05-05', petDOB: '2020-02-02' });
    const response = await request(service.url, 'POST', '/api/v1/policy', { token, body });
    expect(response.status).toBe(200);
    expect(contractKeys(response.body)).toEqual(CONTRACT_POLICY_KEYS);
    expect(response.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body).toMatchObject({
      internalID: 'ext-1',
      number: 5001,
      ownerFirstname: 'Rosa',
      ownerLastname: 'Diaz',
      ownerDOB: '1990-05-05',
      petName: 'Biscuit',
      petDOB: '2020-02-02',
      effectiveDate: '2026-01-01',
      expirationDate: '2027-01-01',
      coverageSlug: 'accident-illness-basic',
      organization,
    });
    expect(response.body.coverage).toEqual({
      slug: 'accident-illness-basic',
      name: 'Accident & Illness Basic',
      deductible: 50000,
      reimbursementRate: 0.8,
      annualLimit: 500000,
      monthlyPremium: 2900,
      currency: 'USD',
    });
    expect(response.body.charges).toHaveLength(12);
    expect(response.body.charges[0]).toEqual({
      id: expect.any(String),
      type: 'premium',
      periodStart: '2026-01-01',
      periodEnd: '2026-02-01',
      dueDate: '2026-01-01',
      amount: 2900,
      currency: 'USD',
      status: 'scheduled',
      transactionId: expect.any(String),
      reverses: null,
    });
    expect(response.body.charges.every((charge: { amount: number }) => charge.amount === 2900)).toBe(true);
    expect(response.text).not.toContain('cvc');
    expect(response.text).not.toMatch(standalone(CVC));
  });

  it('reads a policy with every field but cvc, in the order of contract section 18, and the id node(id:) takes', async () => {
    await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({
        number: 5002,
        cvc: CVC,
        effectiveDate: '2026-01-31',
        expirationDate: '2026-05-15',
        coverageSlug: 'accident-only',
      }),
    });
    const response = await request(service.url, 'GET', '/api/v1/policy/5002', { token });
    expect(response.status).toBe(200);
    expect(contractKeys(response.body)).toEqual(CONTRACT_POLICY_KEYS);
    expect(response.body).toMatchObject({
      number: 5002,
      internalID: null,
      ownerFirstname: 'Rosa',
      ownerLastname: 'Diaz',
      ownerDOB: null,
      petName: 'Biscuit',
      petDOB: null,
      effectiveDate: '2026-01-31',
      expirationDate: '2026-05-15',
      coverageSlug: 'accident-only',
      status: 'expired',
      cancellation: null,
      renewalOf: null,
      renewedBy: null,
    });
    const node = await graphql(
      service.url,
      'query ($id: ID!) { node(id: $id) { __typename ... on Policy { number } } }',
      { id: response.body.id },
      token,
    );
    expect(node.body.data.node).toEqual({ __typename: 'Policy', number: 5002 });
    expect(response.body.organization).toEqual(organization);
    expect(response.body.coverage).toMatchObject({ slug: 'accident-only', monthlyPremium: 1200, annualLimit: 500000, currency: 'USD' });
    expect(response.body.charges.map((c: Record<string, unknown>) => [c.periodStart, c.periodEnd, c.dueDate, c.amount])).toEqual([
      ['2026-01-31', '2026-02-28', '2026-01-31', 1200],
      ['2026-02-28', '2026-03-31', '2026-02-28', 1200],
      ['2026-03-31', '2026-04-30', '2026-03-31', 1200],
      ['2026-04-30', '2026-05-15', '2026-04-30', 581],
    ]);
    expect(response.text).not.toContain('cvc');
    expect(response.text).not.toMatch(standalone(CVC));
  });

  it('keeps the coverage as it was at creation when the catalog changes', async () => {
    await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 5003 }) });
    await service.sql("update coverage_plan set monthly_premium = 9999 where slug = 'accident-illness-basic'");
    try {
      const response = await request(service.url, 'GET', '/api/v1/policy/5003', { token });
      expect(response.body.coverage.monthlyPremium).toBe(2900);
    } finally {
      await service.sql("update coverage_plan set monthly_premium = 2900 where slug = 'accident-illness-basic'");
    }
  });

  it('never stores the cvc', async () => {
    await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 5004, cvc: CVC }) });
    const rows = await service.sql('select p.*, c.* from policy p join charge c on c.policy_id = p.id where p.number = 5004');
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toMatch(standalone(CVC));
  });

  it('assigns distinct numbers when the client sends none, skipping numbers clients chose', async () => {
    // A client takes 1 and 2; the server's sequence must step over them.
    for (const number of [1, 2]) {
      expect((await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number }) })).status).toBe(200);
    }
    const numbers = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const response = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody() });
      expect(response.status).toBe(200);
      expect(Number.isSafeInteger(response.body.number)).toBe(true);
      numbers.add(response.body.number);
    }
    expect(numbers.size).toBe(5);
    expect(numbers.has(1) || numbers.has(2)).toBe(false);
  });

  it('writes in two statements after the creates budget: the organization with its plan, then one insert; then reads its Consistency-Token', async () => {
    const sent: string[] = [];
    const stop = service.database.onStatement(({ text }) => {
      // The creates budget's upsert, before the body is read (rate-limiter-flexible's statement, table "rate_limit").
      if (!text.includes('"rate_limit"')) sent.push(text.replace(/\s+/g, ' ').slice(0, 60));
    });
    try {
      const response = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ petName: 'Counted' }) });
      expect(response.status).toBe(200);
    } finally {
      stop();
    }
    expect(sent).toHaveLength(3);
    expect(sent[0]).toMatch(/^select o\.id/);
    expect(sent[1]).toMatch(/^with made as \( insert into policy/);
    // After the commit: the primary's WAL position, the answer's Consistency-Token (contract section 17).
    expect(sent[2]).toBe('select pg_current_wal_insert_lsn()::text as lsn');
    // The event went with it (spec section 11).
    const [event] = await service.sql<{ data: { object: { petName: string; number: number } } }>(
      `select data from event where type = 'policy.created' and data->'object'->>'petName' = 'Counted'`,
    );
    expect(event.data.object.number).toBeGreaterThan(0);
  });

  it('round-trips the largest policy number, 2^53 - 1', async () => {
    const number = Number.MAX_SAFE_INTEGER;
    const created = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number }) });
    expect(created.body.number).toBe(number);
    const read = await request(service.url, 'GET', `/api/v1/policy/${number}`, { token });
    expect(read.body.number).toBe(number);
    const tooBig = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: `{"number": 9007199254740992, "ownerFirstname": "a"}`,
    });
    expect(tooBig.status).toBe(400);
  });

  it('creates through GraphQL and reads through REST', async () => {
    const input = policyBody({ number: 7001, cvc: CVC, petName: 'Gql' }) as CreatePolicyInput;
    const created = await execute(service.url, CreatePolicyDocument, { input }, token);
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data!.createPolicy).toMatchObject({ number: 7001, petName: 'Gql', organization: { id: organization.id } });
    const read = await request(service.url, 'GET', '/api/v1/policy/7001', { token });
    expect(read.status).toBe(200);
    expect(read.body.charges).toHaveLength(12);
  });

  it('creates through REST and reads through GraphQL', async () => {
    await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 7002, petName: 'Rest', cvc: CVC }) });
    const read = await execute(service.url, PolicyDocument, { number: 7002 }, token);
    expect(read.body.data!.policy).toMatchObject({
      number: 7002,
      petName: 'Rest',
      coverage: { slug: 'accident-illness-basic' },
      organization,
    });
    expect(read.body.data!.policy!.charges).toHaveLength(12);
  });

  it('lists the coverage catalog', async () => {
    const response = await execute(service.url, CoveragesDocument, {}, token);
    expect(response.body.data!.coverages).toEqual([
      {
        slug: 'accident-only',
        name: 'Accident Only',
        deductible: 25000,
        reimbursementRate: 0.9,
        annualLimit: 500000,
        monthlyPremium: 1200,
        currency: 'USD',
      },
      {
        slug: 'accident-illness-basic',
        name: 'Accident & Illness Basic',
        deductible: 50000,
        reimbursementRate: 0.8,
        annualLimit: 500000,
        monthlyPremium: 2900,
        currency: 'USD',
      },
      {
        slug: 'accident-illness-plus',
        name: 'Accident & Illness Plus',
        deductible: 25000,
        reimbursementRate: 0.9,
        annualLimit: 1500000,
        monthlyPremium: 4200,
        currency: 'USD',
      },
      {
        slug: 'accident-illness-unlimited',
        name: 'Accident & Illness Unlimited',
        deductible: 10000,
        reimbursementRate: 0.9,
        annualLimit: null,
        monthlyPremium: 6400,
        currency: 'USD',
      },
    ]);
  });
});
