import { describe, expect, it } from 'vitest';
import { CHARGE_TYPES } from '../../src/policies/charge-types.js';
import { PAYMENT_KINDS, TRANSACTION_KINDS } from '../../src/policies/ledger/kinds.js';
import { useTestService } from '../support/test-service.js';

/**
 * The database's check constraints hold the same closed sets as the code's one declaration of
 * each (issue 38: a new transaction kind or charge type is added to its constant, and this test
 * then names the migration it needs, which neither the compiler nor the linter can).
 */
describe('the closed sets in the database', () => {
  const service = useTestService();

  /** The values a `check (column in (...))` constraint allows, in its order. */
  async function allowed(table: string, constraint: string): Promise<string[]> {
    const [{ definition }] = await service.sql<{ definition: string }>(
      `select pg_get_constraintdef(c.oid) as definition from pg_constraint c
       where c.conrelid = $1::regclass and c.conname = $2`,
      [table, constraint],
    );
    return [...definition.matchAll(/'([^']+)'::text/g)].map((match) => match[1]);
  }

  it('allows exactly the transaction kinds of ledger/kinds.ts', async () => {
    expect(await allowed('policy_transaction', 'policy_transaction_type_check')).toEqual([...TRANSACTION_KINDS]);
  });

  it('allows exactly the payment kinds of ledger/kinds.ts (contract section 19)', async () => {
    expect(await allowed('policy_payment', 'policy_payment_type_check')).toEqual([...PAYMENT_KINDS]);
  });

  it('allows exactly the charge types of charge-types.ts', async () => {
    expect(await allowed('charge', 'charge_type_check')).toEqual([...CHARGE_TYPES]);
  });
});
