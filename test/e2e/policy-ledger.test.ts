import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormSettings } from '../../src/database/orm-settings.js';
import { createLogger } from '../../src/logger.js';
import { premiumSchedule } from '../../src/policies/ledger/premium-schedule.js';
import { policyBody } from '../support/fixtures.js';
import { graphql, request } from '../support/http.js';
import { insertOrganizations, insertPolicies } from '../support/rows.js';
import { createRootOrganization, createTestDatabase, startTestService, useTestService, type TestService } from '../support/test-service.js';

/**
 * Contract section 14, "Charges are a ledger": transactions own charges, and charges never change.
 * A ledger past its length, and its cost to GraphQL, through the operation core:
 * test/in-process/policy-ledger.
 */
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
