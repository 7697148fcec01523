import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREATE_POLICY } from '../../src/rest/operations.js';
import { policyBody } from '../support/fixtures.js';
import { request, type TestResponse } from '../support/http.js';
import { createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 14: issuing a quote, `POST /api/v1/policy` and `createPolicy` with `quoteId`.
 * Each case runs on both surfaces; GraphQL answers are read as REST's (status from the code).
 */

const STATUS: Record<string, number> = {
  BAD_USER_INPUT: 400,
  NOT_FOUND: 404,
  INVALID_STATE: 409,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
};

interface Answer {
  status: number;
  code?: string;
  errors?: Array<{ path: string; message: string }>;
  policy?: Record<string, any>;
  replayed: boolean;
}

// A quote's charges are the schedule without ids; a policy's also name their ledger transaction.
const withoutIds = (charges: Array<Record<string, unknown>>) =>
  charges.map(({ id: _id, transactionId: _transaction, reverses: _reverses, ...charge }) => charge);

describe('issuing a quote', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  const quote = async (overrides: Record<string, unknown> = {}) => {
    const created = await request(service.url, 'POST', '/api/v1/quote', { token, body: policyBody(overrides) });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return created.body;
  };
  const readQuote = async (id: string) => (await request(service.url, 'GET', `/api/v1/quote/${id}`, { token })).body;
  const policiesOf = (quoteId: string) =>
    service.sql<{ number: string }>('select p.number::text as number from policy p join quote q on q.policy_id = p.id where q.id = $1', [
      quoteId,
    ]);
  const policyCount = async () => Number((await service.sql<{ n: string }>('select count(*) as n from policy'))[0].n);

  const SURFACES = {
    REST: async (body: Record<string, unknown>, options: { as?: string; key?: string } = {}): Promise<Answer> => {
      const headers = options.key ? { 'idempotency-key': options.key } : undefined;
      const response: TestResponse = await request(service.url, 'POST', '/api/v1/policy', { token: options.as ?? token, body, headers });
      const replayed = response.headers.get('idempotent-replayed') === 'true';
      if (response.status === 200) return { status: 200, policy: response.body, replayed };
      return { status: response.status, code: response.body.code, errors: response.body.errors, replayed };
    },
    GraphQL: async (body: Record<string, unknown>, options: { as?: string; key?: string } = {}): Promise<Answer> => {
      const headers = options.key ? { 'idempotency-key': options.key } : undefined;
      const response = await request(service.url, 'POST', '/graphql', {
        token: options.as ?? token,
        body: { query: CREATE_POLICY, variables: { input: body } },
        headers,
      });
      const replayed = response.headers.get('idempotent-replayed') === 'true';
      const [error] = response.body.errors ?? [];
      if (!error) return { status: 200, policy: response.body.data.createPolicy, replayed };
      const code = error.extensions.code as string;
      return { status: STATUS[code] ?? 500, code, errors: error.extensions.errors, replayed };
    },
  };

  describe.each(Object.entries(SURFACES))('over %s', (_surface, issue) => {
    it("makes a policy of the quote's fields, coverage and charges (amounts, periods), then the quote reads issued with its number", async () => {
      const quoted = await quote({
        ownerDOB: '1990-05-05',
        petDOB: '2020-02-02',
        effectiveDate: '2026-01-31',
        expirationDate: '2026-05-15',
        coverageSlug: 'accident-only',
      });
      const answer = await issue({ quoteId: quoted.id, internalID: `issued-${quoted.id}`, cvc: '123' });
      expect(answer.status, JSON.stringify(answer)).toBe(200);
      const policy = answer.policy!;
      expect(policy).toMatchObject({
        internalID: `issued-${quoted.id}`,
        ownerFirstname: quoted.ownerFirstname,
        ownerLastname: quoted.ownerLastname,
        ownerDOB: '1990-05-05',
        petName: quoted.petName,
        petDOB: '2020-02-02',
        effectiveDate: '2026-01-31',
        expirationDate: '2026-05-15',
        coverageSlug: 'accident-only',
        organization: { id: quoted.organizationId },
      });
      expect(policy.coverage).toEqual(quoted.coverage);
      expect(withoutIds(policy.charges)).toEqual(quoted.charges);
      // The partial last period, as quoted.
      expect(policy.charges.at(-1)).toMatchObject({ periodStart: '2026-04-30', periodEnd: '2026-05-15' });
      // New ids, owned by the policy's issuance transaction.
      const [issuance] = await service.sql<{ id: string; type: string }>(
        'select t.id, t.type from policy_transaction t join policy p on p.id = t.policy_id where p.number = $1',
        [policy.number],
      );
      expect(issuance.type).toBe('issuance');
      expect(new Set(policy.charges.map((charge: { id: string }) => charge.id)).size).toBe(policy.charges.length);
      expect(policy.charges.every((charge: { transactionId: string }) => charge.transactionId === issuance.id)).toBe(true);

      const read = await request(service.url, 'GET', `/api/v1/policy/${policy.number}`, { token });
      expect(read.body.charges).toEqual(policy.charges);
      expect(await readQuote(quoted.id)).toMatchObject({ status: 'issued', policyNumber: policy.number });
      const events = await service.sql(`select 1 from event where type = 'policy.created' and (data->'object'->>'number')::bigint = $1`, [
        policy.number,
      ]);
      expect(events).toHaveLength(1);
    });

    it('takes the number given, or assigns one', async () => {
      const chosen = 700_000 + Math.floor(Math.random() * 100_000);
      const given = await issue({ quoteId: (await quote()).id, number: chosen });
      expect(given.policy?.number).toBe(chosen);
      const assigned = await issue({ quoteId: (await quote()).id });
      expect(assigned.status).toBe(200);
      expect(assigned.policy!.number).toBeGreaterThan(0);
    });

    it('keeps the quoted price after the catalog changed between quote and issue', async () => {
      const quoted = await quote({ coverageSlug: 'accident-illness-plus' });
      await service.sql(`update coverage_plan set monthly_premium = 9999, name = 'Renamed' where slug = 'accident-illness-plus'`);
      try {
        const answer = await issue({ quoteId: quoted.id });
        expect(answer.status, JSON.stringify(answer)).toBe(200);
        expect(answer.policy!.coverage).toMatchObject({ name: 'Accident & Illness Plus', monthlyPremium: 4200 });
        expect(answer.policy!.charges.map((charge: { amount: number }) => charge.amount)).toEqual(Array(12).fill(4200));
      } finally {
        await service.sql(
          `update coverage_plan set monthly_premium = 4200, name = 'Accident & Illness Plus' where slug = 'accident-illness-plus'`,
        );
      }
    });

    it('answers 409 INVALID_STATE for a quote already issued, writing nothing more', async () => {
      const quoted = await quote();
      const first = await issue({ quoteId: quoted.id });
      expect(first.status).toBe(200);
      const before = await policyCount();
      const second = await issue({ quoteId: quoted.id });
      expect(second).toMatchObject({ status: 409, code: 'INVALID_STATE' });
      expect(await policyCount()).toBe(before);
      expect(await readQuote(quoted.id)).toMatchObject({ status: 'issued', policyNumber: first.policy!.number });
    });

    it('answers 409 INVALID_STATE for an expired quote, which stays expired and unissued', async () => {
      const quoted = await quote();
      await service.sql(`update quote set expires_at = now() - interval '1 second' where id = $1`, [quoted.id]);
      const before = await policyCount();
      expect(await issue({ quoteId: quoted.id })).toMatchObject({ status: 409, code: 'INVALID_STATE' });
      expect(await policyCount()).toBe(before);
      expect(await readQuote(quoted.id)).toMatchObject({ status: 'expired', policyNumber: null });
    });

    it('answers 400 naming each quoted field sent again, organizationId included, with the other broken rules, writing nothing', async () => {
      const quoted = await quote();
      const before = await policyCount();
      const answer = await issue({
        quoteId: quoted.id,
        petName: 'Other',
        organizationId: quoted.organizationId,
        ownerDOB: null,
        cvc: '12',
      });
      expect(answer).toMatchObject({ status: 400, code: 'BAD_USER_INPUT' });
      expect(answer.errors!.map((error) => error.path).sort()).toEqual(['cvc', 'organizationId', 'ownerDOB', 'petName']);
      expect(answer.errors!.find((error) => error.path === 'petName')!.message).toMatch(/quoted/);
      expect(await policyCount()).toBe(before);
      expect((await readQuote(quoted.id)).status).toBe('open');
    });

    it('still requires the fields of a new policy without quoteId', async () => {
      const answer = await issue({ petName: 'No quote' });
      expect(answer).toMatchObject({ status: 400, code: 'BAD_USER_INPUT' });
      expect(answer.errors!.map((error) => error.path).sort()).toEqual([
        'coverageSlug',
        'effectiveDate',
        'expirationDate',
        'ownerFirstname',
        'ownerLastname',
      ]);
    });

    it('lets one of 10 racing issues of a quote win: one 200, nine 409 INVALID_STATE, one policy', async () => {
      const quoted = await quote();
      const answers = await Promise.all(Array.from({ length: 10 }, () => issue({ quoteId: quoted.id })));
      const statuses = answers.map((answer) => `${answer.status} ${answer.code ?? ''}`.trim()).sort();
      expect(statuses).toEqual(['200', ...Array(9).fill('409 INVALID_STATE')]);
      const policies = await policiesOf(quoted.id);
      expect(policies).toHaveLength(1);
      expect(Number(policies[0].number)).toBe(answers.find((answer) => answer.status === 200)!.policy!.number);
    });

    it("answers 404 for a stranger's quote exactly as for a missing one, and the quote stays open", async () => {
      const quoted = await quote();
      const stranger = await service.token({ sub: `stranger-${randomUUID()}` });
      const forbidden = await issue({ quoteId: quoted.id }, { as: stranger });
      expect(forbidden).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      for (const missing of [randomUUID(), 'not-a-uuid']) expect(await issue({ quoteId: missing }, { as: stranger })).toEqual(forbidden);
      expect((await readQuote(quoted.id)).status).toBe('open');
    });

    it('replays an Idempotency-Key: the same answer, one policy, one event; another body is 422', async () => {
      const quoted = await quote();
      const key = `issue-${randomUUID()}`;
      const first = await issue({ quoteId: quoted.id }, { key });
      expect(first.status).toBe(200);
      const again = await issue({ quoteId: quoted.id }, { key });
      expect(again).toMatchObject({ status: 200, replayed: true });
      expect(again.policy).toEqual(first.policy);
      expect(await policiesOf(quoted.id)).toHaveLength(1);
      expect(
        await service.sql(`select 1 from event where type = 'policy.created' and (data->'object'->>'number')::bigint = $1`, [
          first.policy!.number,
        ]),
      ).toHaveLength(1);
      const other = await issue({ quoteId: quoted.id, internalID: 'another body' }, { key });
      expect(other).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    });
  });

  it('is in the OpenAPI document: quoteId in the create body, either a new policy or a quote to issue, and the 409', async () => {
    const document = (await request(service.url, 'GET', '/api/v1/openapi.json')).body;
    const body = document.components.schemas.CreatePolicyRequest;
    expect(body.properties.quoteId.type).toContain('string');
    expect(body.required).toBeUndefined();
    expect(body.oneOf).toHaveLength(2);
    const create = document.paths['/api/v1/policy'].post;
    expect(create.responses['409'].description).toMatch(/INVALID_STATE/);
    expect(create.requestBody.content['application/json'].examples.issueQuote.value).toHaveProperty('quoteId');
  });

  it('issues whole after its server-assigned number lost a race: the transaction runs again, the quote is not left locked or half-issued', async () => {
    const quoted = await quote();
    // Another transaction takes the number the sequence gives next, without committing yet: the
    // issue's insert waits for it, then fails on the unique number once it commits.
    const holder = await request(service.url, 'POST', '/api/v1/policy', {
      token,
      body: policyBody({ number: 950_000 + Math.floor(Math.random() * 40_000) }),
    });
    expect(holder.status).toBe(200);
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      const [{ next }] = (
        await client.query(`select (case when is_called then last_value + 1 else last_value end)::text as next from policy_number_seq`)
      ).rows;
      await client.query('begin');
      await client.query('update policy set number = $1 where number = $2', [next, holder.body.number]);
      const issuing = SURFACES.REST({ quoteId: quoted.id });
      // Wait until the issue is blocked on the uncommitted number, then let it fail.
      for (;;) {
        const { rows } = await client.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
        );
        if (rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await client.query('commit');
      const answer = await issuing;
      expect(answer.status, JSON.stringify(answer)).toBe(200);
      expect(answer.policy!.number).not.toBe(Number(next));
      expect(await readQuote(quoted.id)).toMatchObject({ status: 'issued', policyNumber: answer.policy!.number });
      expect(await policiesOf(quoted.id)).toHaveLength(1);
      expect(
        await service.sql(`select 1 from event where type = 'policy.created' and (data->'object'->>'number')::bigint = $1`, [
          answer.policy!.number,
        ]),
      ).toHaveLength(1);
    } finally {
      await client.query('rollback').catch(() => undefined);
      await client.end();
    }
  });
});
