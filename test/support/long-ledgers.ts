import { expect } from 'vitest';
import { organizationWithSecrets, policyBody } from './fixtures.js';
import { request } from './http.js';
import type { TestServiceHandle } from './test-service.js';

/** The security review's case (issue 37, M2): one organization with 25 policies of 744 charges each. */
export const LEDGER_LENGTH = 744;
export const POLICIES = 25;

/** Premiums appended to every policy of the organization up to `length` charges, straight to the table (as cycles of cancellations would). */
export function lengthenLedgers(service: Pick<TestServiceHandle, 'sql'>, organizationId: string, length: number) {
  return service.sql(
    `insert into charge (id, policy_id, transaction_id, sequence, type, period_start, period_end, due_date, amount, currency, status)
     select gen_random_uuid(), c.policy_id, c.transaction_id, c.sequence + i, 'premium', '2026-01-01', '2026-02-01', '2026-01-01', 100, 'USD', 'scheduled'
     from (select distinct on (c.policy_id) c.* from charge c join policy p on p.id = c.policy_id
           where p.organization_id = $1 order by c.policy_id, c.sequence desc) c
       cross join generate_series(1, $2::int - 1 - c.sequence) i`,
    [organizationId, length],
  );
}

/** An organization of this caller with `count` policies of `length` charges; returns its id and the policies' numbers, oldest first. */
export async function organizationWithLongLedgers(
  service: TestServiceHandle,
  token: string,
  count: number,
  length: number,
): Promise<{ id: string; numbers: number[] }> {
  const id: string = (await request(service.url, 'POST', '/api/v1/organization', { token, body: organizationWithSecrets() })).body.id;
  const numbers: number[] = [];
  for (let i = 0; i < count; i++) {
    const created = await request(service.url, 'POST', '/api/v1/policy', { token, body: policyBody({ organizationId: id }) });
    expect(created.status, created.text).toBe(200);
    numbers.push(created.body.number);
  }
  await lengthenLedgers(service, id, length);
  return { id, numbers };
}
