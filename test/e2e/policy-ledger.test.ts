import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormSettings } from '../../src/database/orm-settings.js';
import { createLogger } from '../../src/logger.js';
import { premiumSchedule } from '../../src/policies/premium-schedule.js';
import { MAX_LEDGER_CHARGES } from '../../src/policies/policy-ledger.js';
import { policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { insertOrganizations, insertPolicies } from '../support/rows.js';
import { createRootOrganization, createTestDatabase, startTestService, useTestService, type TestService } from '../support/test-service.js';

/** Contract section 14, "Charges are a ledger": transactions own charges, and charges never change. */
describe('the charge ledger', () => {
  const service = useTestService();
  let token: string;

  beforeAll(async () => {
    ({ token } = await createRootOrganization(service));
  });

  it('writes an issuance transaction with the policy, owning every charge, shown on REST and GraphQL reads', async () => {
    const created = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 100 }) });
    expect(created.status).toBe(200);
    const [transaction] = await service.sql<{ id: string; type: string; effective_date: string; created_by_sub: string; changes: object }>(
      `select t.id, t.type, to_char(t.effective_date, 'YYYY-MM-DD') as effective_date, t.created_by_sub, t.changes
       from policy_transaction t join policy p on p.id = t.policy_id where p.number = 100`,
    );
    expect(transaction).toMatchObject({ type: 'issuance', effective_date: '2026-01-01', created_by_sub: 'alice', changes: {} });
    for (const charges of [created.body.charges, (await request(service.url, 'GET', '/api/v1/policy/100', { token })).body.charges]) {
      expect(charges).toHaveLength(12);
      for (const charge of charges) expect(charge).toMatchObject({ type: 'premium', transactionId: transaction.id, reverses: null });
    }
    const listed = await request(service.url, 'GET', '/api/v1/policy', { token });
    expect(listed.body.data[0].charges[0]).toMatchObject({ transactionId: transaction.id, reverses: null });
    const viaGraphql = await graphql(service.url, '{ policy(number: 100) { charges { id type transactionId reverses } } }', {}, token);
    expect(viaGraphql.body.data.policy.charges[0]).toEqual({
      id: created.body.charges[0].id,
      type: 'premium',
      transactionId: transaction.id,
      reverses: null,
    });
    // Stored as answered: the rows carry the same transaction.
    const rows = await service.sql<{ transaction_id: string }>(
      'select c.transaction_id from charge c join policy p on p.id = c.policy_id where p.number = 100',
    );
    expect(new Set(rows.map((row) => row.transaction_id))).toEqual(new Set([transaction.id]));
  });

  it('refuses an UPDATE, a DELETE and a TRUNCATE of a charge or a transaction in the database itself', async () => {
    await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 101 }) });
    const [{ id }] = await service.sql<{ id: string }>(
      'select c.id from charge c join policy p on p.id = c.policy_id where p.number = 101 limit 1',
    );
    const refusals = [
      ['update charge set amount = 1 where id = $1', [id]],
      ['update charge set status = status where id = $1', [id]],
      ['delete from charge where id = $1', [id]],
      ['truncate charge', []],
      ['update policy_transaction set effective_date = effective_date', []],
      ['delete from policy_transaction', []],
      ['truncate policy_transaction cascade', []],
      // Deleting the policy would cascade to its charges.
      ['delete from policy where number = 101', []],
    ] as const;
    for (const [statement, values] of refusals) {
      await expect(service.sql(statement, [...values]), statement).rejects.toMatchObject({ code: 'LG001' });
    }
    expect(await service.sql('select 1 from charge c join policy p on p.id = c.policy_id where p.number = 101')).toHaveLength(12);
  });

  it('keeps the checks of a ledger line: a credit is not positive, a reversal names the charge it undoes', async () => {
    const [charge] = await service.sql<{ id: string; policy_id: string; transaction_id: string }>(
      'select c.id, c.policy_id, c.transaction_id from charge c join policy p on p.id = c.policy_id where p.number = 100 limit 1',
    );
    const insert = (type: string, amount: number, reverses: string | null) =>
      service.sql(
        `insert into charge (id, policy_id, transaction_id, sequence, type, period_start, period_end, due_date, amount, currency, status, reverses)
         values ($1, $2, $3, (select max(sequence) + 1 from charge where policy_id = $2), $4, '2026-01-01', '2026-02-01', '2026-01-01', $5, 'USD', 'scheduled', $6)`,
        [randomUUID(), charge.policy_id, charge.transaction_id, type, amount, reverses],
      );
    await expect(insert('credit', 5, null)).rejects.toMatchObject({ code: '23514' });
    await expect(insert('reversal', -5, null)).rejects.toMatchObject({ code: '23514' });
    await expect(insert('premium', 5, charge.id)).rejects.toMatchObject({ code: '23514' });
    await expect(insert('refund', 5, null)).rejects.toMatchObject({ code: '23514' });
  });

  /** Premiums for the policy's issuance, numbered after its last charge, written straight to the table (as cycles of cancellations would). */
  const lengthenLedger = (number: number, count: number) =>
    service.sql(
      `insert into charge (id, policy_id, transaction_id, sequence, type, period_start, period_end, due_date, amount, currency, status)
       select gen_random_uuid(), c.policy_id, c.transaction_id, c.sequence + i, 'premium', '2026-01-01', '2026-02-01', '2026-01-01', 0, 'USD', 'scheduled'
       from (select c.* from charge c join policy p on p.id = c.policy_id where p.number = $1 order by c.sequence desc limit 1) c,
         generate_series(1, $2::int) i`,
      [number, count],
    );

  it(`refuses with 409 a transaction that would take a ledger past ${MAX_LEDGER_CHARGES} charges, writing nothing`, async () => {
    const created = await request(service.url, 'POST', '/api/v1/policy', {
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
    const cancelled = await request(service.url, 'POST', '/api/v1/policy/102/cancellation', {
      token,
      body: { effectiveDate: '2026-03-01', reason: 'other' },
    });
    expect(cancelled.status, cancelled.text).toBe(409);
    expect(cancelled.body).toMatchObject({ code: 'INVALID_STATE' });
    expect(cancelled.body.detail).toContain(`over the ${MAX_LEDGER_CHARGES} a policy holds`);
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
    await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ number: 103 }) });
    await lengthenLedger(103, 600 - 12);
    // Counted before it runs at 61 charges, each 1 + 1 field; read, 539 more at 2 each: 1,078 of the 5,000.
    const one = await graphql(service.url, '{ policy(number: 103) { charges { id } } }', {}, token);
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.policy.charges).toHaveLength(600);
    // Five of it are 5,390 more: refused as a query over the limit is, with no data.
    const aliases = [1, 2, 3, 4, 5].map((i) => `p${i}: policy(number: 103) { charges { id } }`).join(' ');
    const five = await request(service.url, 'POST', '/graphql', {
      token,
      body: { query: `{ ${aliases} }` },
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(five.status, five.text).toBe(400);
    expect(five.body.data).toBeUndefined();
    expect(five.body.errors[0]).toMatchObject({ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(five.body.errors[0].message).toContain('Query cost limit of 5000 exceeded while reading: a list held 600 items');
    // REST runs the service's own documents, without the limit: the read has every charge.
    expect((await request(service.url, 'GET', '/api/v1/policy/103', { token })).body.charges).toHaveLength(600);
  });
});

/** The migration gives every policy that existed before it one issuance transaction owning its charges. */
describe('the ledger migration over existing policies', () => {
  let service: TestService | undefined;
  afterAll(() => service?.stop());

  it('backfills an issuance transaction per policy, effective on its date, by its creator, owning all its charges', async () => {
    const databaseUrl = await createTestDatabase();
    const orm = await MikroORM.init({
      ...ormSettings(databaseUrl, createLogger('silent')),
      entities: [],
      discovery: { disableDynamicFileAccess: true, warnWhenNoEntities: false },
    });
    const policies = [
      { id: randomUUID(), number: 1, effectiveDate: '2026-01-31', expirationDate: '2026-05-15', createdBySub: 'old-alice' },
      { id: randomUUID(), number: 2, effectiveDate: '2025-03-01', expirationDate: '2026-03-01', createdBySub: 'old-bob' },
      { id: randomUUID(), number: 3, effectiveDate: '2026-06-01', expirationDate: '2026-07-01', createdBySub: 'old-cara' },
    ];
    const client = new pg.Client({ connectionString: databaseUrl });
    try {
      await orm.getMigrator().up({ to: 'Migration20261126120000_organization_depth' });
      await client.connect();
      const db = { sql: async (text: string, values?: unknown[]) => (await client.query(text, values)).rows as never[] };
      const [organizationId] = await insertOrganizations(db, [{ ownerSub: 'old-alice' }]);
      await insertPolicies(
        db,
        policies.map((policy) => ({ ...policy, organizationId })),
      );
      // Charges as the old create wrote them: the premium schedule, without a transaction.
      for (const policy of policies) {
        const schedule = premiumSchedule({ ...policy, monthlyPremium: 1200, currency: 'USD' });
        for (const [sequence, charge] of schedule.entries()) {
          await db.sql(
            `insert into charge (id, policy_id, sequence, type, period_start, period_end, due_date, amount, currency, status)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
            [
              randomUUID(),
              policy.id,
              sequence,
              charge.type,
              charge.periodStart,
              charge.periodEnd,
              charge.dueDate,
              charge.amount,
              charge.currency,
              charge.status,
            ],
          );
        }
      }
    } finally {
      await client.end();
      await orm.close();
    }

    service = await startTestService({}, { databaseUrl });
    const transactions = await service.sql<{
      id: string;
      policy_id: string;
      type: string;
      effective_date: string;
      created_by_sub: string;
      changes: object;
    }>(
      `select t.id, t.policy_id, t.type, to_char(t.effective_date, 'YYYY-MM-DD') as effective_date, t.created_by_sub, t.changes from policy_transaction t`,
    );
    expect(transactions).toHaveLength(3);
    for (const policy of policies) {
      const owned = transactions.filter((transaction) => transaction.policy_id === policy.id);
      expect(owned).toEqual([
        {
          id: expect.any(String),
          policy_id: policy.id,
          type: 'issuance',
          effective_date: policy.effectiveDate,
          created_by_sub: policy.createdBySub,
          changes: {},
        },
      ]);
      const charges = await service.sql<{ transaction_id: string }>('select transaction_id from charge where policy_id = $1', [policy.id]);
      expect(charges.length).toBeGreaterThan(0);
      expect(charges.every((charge) => charge.transaction_id === owned[0].id)).toBe(true);
    }
    expect(await service.sql('select 1 from charge where transaction_id is null')).toEqual([]);
    // And the migrated policy reads with it, through the service.
    const read = await request(service.url, 'GET', '/api/v1/policy/1', { token: await service.token({ sub: 'old-alice' }) });
    expect(read.status).toBe(200);
    expect(read.body.charges.map((charge: { amount: number }) => charge.amount)).toEqual([1200, 1200, 1200, 581]);
    expect(
      read.body.charges.every(
        (charge: { transactionId: string }) => charge.transactionId === transactions.find((t) => t.policy_id === policies[0].id)!.id,
      ),
    ).toBe(true);
  });
});
