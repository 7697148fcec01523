import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { policyBody } from '../support/fixtures.js';
import { request } from '../support/http.js';
import { quoteIssuing } from '../support/issue-quote.js';
import { clientOf, createRootOrganization, useTestService } from '../support/test-service.js';

/**
 * Contract section 14: issuing a quote, `POST /api/v1/policy` and `createPolicy` with `quoteId`,
 * over HTTP: the policy made of the quote, its number and price, the OpenAPI document, a lost
 * number race. Each case runs on both surfaces. Refusals, races and replays, through the
 * operation core: test/in-process/issue-quote.
 */

// A quote's charges are the schedule without ids; a policy's also name their ledger transaction.
const withoutIds = (charges: Array<Record<string, unknown>>) =>
  charges.map(({ id: _id, transactionId: _transaction, reverses: _reverses, ...charge }) => charge);

describe('issuing a quote', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  const { surfaces, quote, readQuote, policiesOf } = quoteIssuing({ ...clientOf(service), sql: service.sql }, () => token);

  describe.each(Object.entries(surfaces))('over %s', (_surface, issue) => {
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
      const issuing = surfaces.REST({ quoteId: quoted.id });
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
