import { MikroORM } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormConfig } from '../../mikro-orm.config.js';
import { findAccessibleOrganization } from '../../src/organizations/organization.reads.js';
import { findAccessiblePolicy } from '../../src/policies/policy.reads.js';
import { startTestService, type TestService } from '../support/test-service.js';

/**
 * The access check is one SQL statement whatever the depth of the tree (contract section 3):
 * this test records every statement sent while checking at depth 1 and at depth 30, and asks
 * PostgreSQL for the plan of the one it sees.
 */
describe('the access check in SQL', () => {
  let service: TestService;
  let orm: MikroORM;
  const statements: Array<{ sql: string; bindings: unknown[] }> = [];
  const chain: string[] = [];

  beforeAll(async () => {
    service = await startTestService();
    // A chain 30 deep owned by "root-owner", plus 2,000 unrelated roots so the planner sees a real table.
    let parent: string | null = null;
    for (let depth = 0; depth < 30; depth++) {
      const id = randomUUID();
      await service.sql(
        `insert into organization (id, parent_id, owner_sub, name, legal_name, legal_type, tax_id)
         values ($1, $2, $3, 'n', 'n', 't', 'x')`,
        [id, parent, depth === 0 ? 'root-owner' : `user-${depth}`],
      );
      chain.push(id);
      parent = id;
    }
    await service.sql(
      `insert into organization (id, owner_sub, name, legal_name, legal_type, tax_id)
       select gen_random_uuid(), 'other-' || n, 'n', 'n', 't', 'x' from generate_series(1, 2000) as n`,
    );
    await service.sql(
      `insert into policy (id, number, organization_id, owner_firstname, owner_lastname, pet_name, effective_date, expiration_date, coverage_slug, coverage, created_by_sub)
       values ($1, 424242, $2, 'a', 'b', 'c', '2026-01-01', '2027-01-01', 'accident-only', '{}', 'root-owner')`,
      [randomUUID(), chain[29]],
    );
    await service.sql('analyze organization');
    await service.sql('analyze policy');
    orm = await MikroORM.init(ormConfig(service.databaseUrl));
    orm.em.getConnection().getKnex().on('query', (query: { sql: string; bindings: unknown[] }) => statements.push(query));
  });
  afterAll(async () => {
    await orm?.close();
    await service?.stop();
  });

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
    const { result, sent } = await checked(() => findAccessibleOrganization(orm.em.fork(), principal, chain[index]));
    expect(Boolean(result)).toBe(allowed);
    expect(sent).toHaveLength(1);
    // Values travel as bound parameters: the id, the org claim (or null) and the sub.
    expect(sent[0].sql.replace(/\s+/g, ' ')).toMatch(
      /^select o\.id, .* from organization o where o\.id = \$1 and \(\$2::uuid = any\(o\.path\) or \$3::text = any\(o\.owner_subs\)\)$/,
    );
    expect(sent[0].bindings).toEqual([chain[index], principal.org, principal.sub]);
  });

  it('sends one statement to check a policy, joined to its organization', async () => {
    const { result, sent } = await checked(() => findAccessiblePolicy(orm.em.fork(), { sub: 'root-owner', org: null }, 424242));
    expect(result).toBeTruthy();
    expect(sent).toHaveLength(1);
    expect(sent[0].sql).toContain('any(o.path)');
  });

  it('plans the organization check as a primary-key index scan', async () => {
    const { sent } = await checked(() => findAccessibleOrganization(orm.em.fork(), { sub: 'root-owner', org: chain[0] }, chain[29]));
    const plan = await service.sql<{ 'QUERY PLAN': string }>(`explain ${sent[0].sql}`, sent[0].bindings);
    const lines = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(lines).toMatch(/Index Scan using organization_pkey on organization o/);
    expect(lines).not.toMatch(/Seq Scan/);
  });
});
