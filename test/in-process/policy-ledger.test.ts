import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_LEDGER_CHARGES } from '../../src/policies/ledger/ledger-room.js';
import { policyBody } from '../support/fixtures.js';
import { useInProcessService } from '../support/in-process.js';
import { TRANSACTIONS } from '../support/policy-lifecycle.js';
import { createRootOrganization } from '../support/test-service.js';

/**
 * A policy's ledger (contract section 14, "Charges are a ledger" and "Transactions") as the
 * operation core refuses it: a transaction past the ledger's length (409), a long ledger's cost
 * to GraphQL (400), transactions out of reach (404) or asked badly (400). The ledger over HTTP:
 * test/e2e/policy-ledger and test/e2e/policy-transactions.
 */
const service = useInProcessService();
let token: string;

beforeAll(async () => {
  ({ token } = await createRootOrganization(service));
});

describe('the charge ledger', () => {
  /** Premiums for the policy's issuance, numbered after its last charge, written straight to the table (as cycles of cancellations would). */
  const lengthenLedger = (number: number, count: number) =>
    service.sql(
      `insert into charge (id, policy_id, transaction_id, sequence, type, period_start, period_end, due_date, amount, currency, status)
       select gen_random_uuid(), c.policy_id, c.transaction_id, c.sequence + i, 'premium', '2026-01-01', '2026-02-01', '2026-01-01', 0, 'USD', 'scheduled'
       from (select c.* from charge c join policy p on p.id = c.policy_id where p.number = $1 order by c.sequence desc limit 1) c,
         generate_series(1, $2::int) i`,
      [number, count],
    );

  it(`refuses with 409 a cancellation whose reinstatement would take a ledger past ${MAX_LEDGER_CHARGES} charges, writing nothing`, async () => {
    const created = await service.request('POST', '/api/v1/policy', {
      token,
      body: policyBody({ number: 102, effectiveDate: '2026-01-01', expirationDate: '2027-01-01' }),
    });
    expect(created.status).toBe(200);
    // 12 premiums + 980 = 992; a cancellation in the middle of the year credits more than 8.
    await lengthenLedger(102, MAX_LEDGER_CHARGES - 20);
    const count = async () =>
      (
        await service.sql<{ n: number }>('select count(*)::int as n from charge c join policy p on p.id = c.policy_id where p.number = 102')
      )[0].n;
    const cancelled = await service.request('POST', '/api/v1/policy/102/cancellation', {
      token,
      body: { effectiveDate: '2026-03-01', reason: 'other' },
    });
    expect(cancelled.status, cancelled.text).toBe(409);
    expect(cancelled.body).toMatchObject({ code: 'INVALID_STATE' });
    // Ten credits (March to December) fit, but not their reinstatement after them (contract section 14, "Bounded ledgers").
    expect(cancelled.body.detail).toContain(
      `would add 10 charges to the 992 of policy 102's ledger and leave fewer than 10 of the ${MAX_LEDGER_CHARGES} a policy holds free for its reinstatement`,
    );
    expect(await count()).toBe(MAX_LEDGER_CHARGES - 8);
    expect(
      await service.sql(
        "select 1 from policy_transaction t join policy p on p.id = t.policy_id where p.number = 102 and t.type <> 'issuance'",
      ),
    ).toEqual([]);
    expect(await service.sql("select 1 from event where type = 'policy.cancelled' and (data->'object'->>'number')::bigint = 102")).toEqual(
      [],
    );
  });

  it('charges a GraphQL query for a ledger longer than its schedule as it reads it: within the limit all of it, past it a 400', async () => {
    await service.request('POST', '/api/v1/policy', { token, body: policyBody({ number: 103 }) });
    await lengthenLedger(103, 600 - 12);
    // Counted before it runs at 61 charges, each 1 + 1 field; read, 539 more at 2 each: 1,078 of the 5,000.
    const one = await service.graphql('{ policy(number: 103) { charges { id } } }', {}, token);
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.policy.charges).toHaveLength(600);
    // Five of it are 5,390 more: refused as a query over the limit is, with no data.
    const aliases = [1, 2, 3, 4, 5].map((i) => `p${i}: policy(number: 103) { charges { id } }`).join(' ');
    const five = await service.request('POST', '/graphql', {
      token,
      body: { query: `{ ${aliases} }` },
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(five.status, five.text).toBe(400);
    expect(five.body.data).toBeUndefined();
    expect(five.body.errors[0]).toMatchObject({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(five.body.errors[0].message).toContain('Query cost limit of 5000 exceeded while reading: a list held 600 items');
    // REST runs the service's own documents, without the limit: the read has every charge.
    expect((await service.request('GET', '/api/v1/policy/103', { token })).body.charges).toHaveLength(600);
  });
});

describe("a policy's transactions", () => {
  beforeAll(async () => {
    expect((await service.request('POST', '/api/v1/policy', { token, body: policyBody({ number: 300 }) })).status).toBe(200);
  });

  it('answers 404 for a policy out of reach or missing, and 400 for a bad limit or cursor', async () => {
    const stranger = await service.token({ sub: 'mallory' });
    const outOfReach = await service.request('GET', '/api/v1/policy/300/transactions', { token: stranger });
    const missing = await service.request('GET', '/api/v1/policy/99999/transactions', { token });
    const notANumber = await service.request('GET', '/api/v1/policy/abc/transactions', { token });
    for (const response of [outOfReach, missing, notANumber]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    expect(outOfReach.text).toBe(missing.text);
    const viaGraphql = await service.graphql(TRANSACTIONS, { number: 300, first: 5 }, stranger);
    expect(viaGraphql.body.data.policy).toBeNull();
    expect(viaGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    for (const query of ['?limit=0', '?limit=101', '?after=bm90LWEtY3Vyc29y', `?after=${Buffer.from('policy:1').toString('base64url')}`]) {
      const response = await service.request('GET', `/api/v1/policy/300/transactions${query}`, { token });
      expect(response.status, query).toBe(400);
      expect(response.body.code).toBe('BAD_USER_INPUT');
    }
  });
});
