import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/database/database.js';
import { findAccessibleOrganization } from '../../src/organizations/organization.reads.js';
import { findAccessiblePolicy } from '../../src/policies/policy.reads.js';
import { insertOrganizations, insertPolicies } from '../support/rows.js';
import { useTestService } from '../support/test-service.js';

/**
 * The access check is one SQL statement whatever the depth of the tree (contract section 3):
 * this test records every statement sent while checking at depth 1 and at depth 30, and asks
 * PostgreSQL for the plan of the one it sees.
 */
describe('the access check in SQL', () => {
  const service = useTestService();
  // A gateway of its own on the service's database: only the checks' statements pass through it.
  let database: Database;
  const statements: Array<{ sql: string; bindings: readonly unknown[] }> = [];
  const chain: string[] = [];

  beforeAll(async () => {
    // A chain 30 deep owned by "root-owner", plus 2,000 unrelated roots so the planner sees a real table.
    for (let depth = 0; depth < 30; depth++) {
      const [id] = await insertOrganizations(service, [
        { parentId: chain.at(-1) ?? null, ownerSub: depth === 0 ? 'root-owner' : `user-${depth}` },
      ]);
      chain.push(id);
    }
    await insertOrganizations(
      service,
      Array.from({ length: 2000 }, (_, i) => ({ ownerSub: `other-${i + 1}` })),
    );
    await insertPolicies(service, [{ number: 424242, organizationId: chain[29], coverage: {}, createdBySub: 'root-owner' }]);
    await service.sql('analyze organization');
    await service.sql('analyze policy');
    database = new Database({ url: service.databaseUrl });
    database.onStatement(({ text, values }) => statements.push({ sql: text, bindings: values }));
  });
  afterAll(() => database?.close());

  const checked = async (check: () => Promise<unknown>) => {
    statements.length = 0;
    const result = await check();
    return { result, sent: [...statements] };
  };

  it.each([
    ['the root owner, by sub, at depth 30', { sub: 'root-owner', org: null }, 29, true],
    ['the org claim at the top, at depth 30', () => ({ sub: 'x', org: chain[0] }), 29, true],
    ['an org claim at depth 30 reading itself', () => ({ sub: 'x', org: chain[29] }), 29, true],
    ['a child reading its parent at depth 29', () => ({ sub: 'x', org: chain[29] }), 28, false],
    ['a stranger', { sub: 'nobody', org: null }, 29, false],
  ] as const)('sends one statement for %s', async (_name, claims, index, allowed) => {
    const principal = typeof claims === 'function' ? claims() : claims;
    const { result, sent } = await checked(() => findAccessibleOrganization(database, principal, chain[index]));
    expect(Boolean(result)).toBe(allowed);
    expect(sent).toHaveLength(1);
    // Values travel as bound parameters: the id, the org claim (or null) and the sub.
    expect(sent[0].sql.replace(/\s+/g, ' ')).toMatch(
      /^select o\.id, .* from organization o where o\.id = \$1 and \(\$2::uuid = any\(o\.path\) or \$3::text = any\(o\.owner_subs\)\)$/,
    );
    expect(sent[0].bindings).toEqual([chain[index], principal.org, principal.sub]);
  });

  it('sends one statement to check a policy, joined to its organization', async () => {
    const { result, sent } = await checked(() => findAccessiblePolicy(database, { sub: 'root-owner', org: null }, 424242));
    expect(result).toBeTruthy();
    expect(sent).toHaveLength(1);
    expect(sent[0].sql).toContain('any(o.path)');
  });

  it('plans the organization check as a primary-key index scan', async () => {
    const { sent } = await checked(() => findAccessibleOrganization(database, { sub: 'root-owner', org: chain[0] }, chain[29]));
    const plan = await service.sql<{ 'QUERY PLAN': string }>(`explain ${sent[0].sql}`, [...sent[0].bindings]);
    const lines = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(lines).toMatch(/Index Scan using organization_pkey on organization o/);
    expect(lines).not.toMatch(/Seq Scan/);
  });
});
