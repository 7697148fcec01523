import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { organizationBody, policyBody } from '../support/fixtures.js';
import { insertOrganizations } from '../support/rows.js';
import { useInProcessService } from '../support/in-process.js';

const MAX_DEPTH = 3;
const CREATE = 'mutation ($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }';
const TOO_DEEP = {
  path: 'parentId',
  message: `is at the maximum depth of ${MAX_DEPTH} levels; an organization cannot be created under it`,
};

/**
 * Bounded trees (contract section 12; security review 2, H2): a tree has at most
 * ORGANIZATION_MAX_DEPTH levels, a root being level 1, and what an organization, policy or
 * event stores grows at most linearly with its depth. Through the operation core in process, on
 * REST and GraphQL, and in the database itself.
 */
describe('organization depth', () => {
  const service = useInProcessService({
    ORGANIZATION_MAX_DEPTH: String(MAX_DEPTH),
    RATE_LIMIT_REQUESTS_PER_MINUTE: '0',
    RATE_LIMIT_CREATES_PER_MINUTE: '0',
  });
  let token: string;
  /** A chain root > child > leaf: the leaf is at the maximum depth. */
  let chain: string[];

  const written = async () => {
    const [row] = await service.sql<{ organizations: string; events: string; ancestors: string }>(
      `select (select count(*) from organization) as organizations, (select count(*) from event) as events,
              (select count(*) from event_ancestor) as ancestors`,
    );
    return row;
  };

  beforeAll(async () => {
    token = await service.token({ sub: 'alice' });
    chain = [];
    for (let depth = 1; depth <= MAX_DEPTH; depth++) {
      // Each level is created, up to the maximum: alternately over REST and GraphQL.
      const parentId = chain.at(-1) ?? null;
      const id =
        depth % 2 === 1
          ? (await service.request('POST', '/api/v1/organization', { token, body: organizationBody({ parentId }) })).body.id
          : (await service.graphql(CREATE, { input: organizationBody({ parentId }) }, token)).body.data?.createOrganization.id;
      expect(id, `level ${depth}`).toEqual(expect.any(String));
      chain.push(id);
    }
  });

  it('creates down to the maximum depth, and refuses a create below it with 400 on parentId over REST, writing nothing', async () => {
    expect(await service.sql('select cardinality(path) as depth from organization where id = $1', [chain.at(-1)])).toEqual([
      { depth: MAX_DEPTH },
    ]);
    const before = await written();
    const refused = await service.request('POST', '/api/v1/organization', {
      token,
      body: organizationBody({ parentId: chain.at(-1) }),
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'BAD_USER_INPUT', errors: [TOO_DEEP] });
    // The parent taken from the token's org is refused the same way.
    const leafToken = await service.token({ sub: 'alice', org: chain.at(-1) });
    const fromToken = await service.request('POST', '/api/v1/organization', { token: leafToken, body: organizationBody() });
    expect(fromToken.status).toBe(400);
    expect(fromToken.body.errors).toEqual([TOO_DEEP]);
    expect(await written()).toEqual(before);
  });

  it('refuses the same create over GraphQL with 400 BAD_USER_INPUT on parentId, writing nothing', async () => {
    const before = await written();
    const refused = await service.graphql(CREATE, { input: organizationBody({ parentId: chain.at(-1) }) }, token);
    expect(refused.status).toBe(400);
    expect(refused.body.data?.createOrganization ?? null).toBeNull();
    expect(refused.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', errors: [TOO_DEEP] });
    expect(await written()).toEqual(before);
  });

  it('holds in the database for a writer that bypasses the service', async () => {
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      const insert = `insert into organization (id, parent_id, owner_sub, name, legal_name, legal_type, tax_id)
        values (gen_random_uuid(), $1, 'bypass', 'x', 'x', 'x', 'x')`;
      await client.query(`set org_policy.organization_max_depth = ${MAX_DEPTH}`);
      await expect(client.query(insert, [chain.at(-1)])).rejects.toMatchObject({
        code: 'TD001',
        message: `organization max depth ${MAX_DEPTH} exceeded`,
      });
      // A connection that sets no maximum gets the default of 32.
      await client.query('reset org_policy.organization_max_depth');
      expect((await client.query("select current_setting('org_policy.organization_max_depth', true) as max")).rows[0].max ?? '').toBe('');
      await client.query(insert, [chain.at(-1)]);
    } finally {
      await client.end();
    }
    expect(await service.sql("select cardinality(path) as depth from organization where owner_sub = 'bypass'")).toEqual([
      { depth: MAX_DEPTH + 1 },
    ]);
  });

  it('keeps a tree made deeper before the cap readable, refuses organizations under it, and still files its policies', async () => {
    // Written straight to the database, on a connection that does not set the service's maximum.
    const deep = await insertOrganizations(service, [{ ownerSub: 'alice' }]);
    for (let depth = 2; depth <= MAX_DEPTH + 2; depth++)
      deep.push(...(await insertOrganizations(service, [{ ownerSub: 'alice', parentId: deep.at(-1) }])));
    const deepest = deep.at(-1)!;
    expect((await service.request('GET', `/api/v1/organization/${deepest}`, { token })).status).toBe(200);
    const refused = await service.request('POST', '/api/v1/organization', { token, body: organizationBody({ parentId: deepest }) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([TOO_DEEP]);
    const policy = await service.request('POST', '/api/v1/policy', { token, body: policyBody({ organizationId: deepest }) });
    expect(policy.status).toBe(200);
  });

  it('stores per organization, event and policy one ancestry entry per level, never more', async () => {
    await service.request('POST', '/api/v1/policy', { token, body: policyBody({ organizationId: chain.at(-1) }) });
    // Each organization of the chain: its path, its created event's ancestor rows, and the
    // ancestor rows of the policies filed under it, against its depth.
    const rows = await service.sql<{
      depth: number;
      path: number;
      events: number;
      eventAncestors: number;
      policies: number;
      policyAncestors: number;
    }>(
      `select o.depth, cardinality(o.path) as path,
              (select count(*)::int from event e where e.organization_id = o.id) as events,
              (select count(*)::int from event e join event_ancestor a on a.event_seq = e.seq where e.organization_id = o.id) as "eventAncestors",
              (select count(*)::int from policy p where p.organization_id = o.id) as policies,
              (select count(*)::int from policy p join policy_ancestor a on a.policy_seq = p.seq where p.organization_id = o.id) as "policyAncestors"
         from (select id, path, array_position($1::uuid[], id) as depth from organization where id = any ($1::uuid[])) o
        order by o.depth`,
      [chain],
    );
    expect(rows.map((row) => row.depth)).toEqual([1, 2, 3]);
    for (const row of rows) {
      expect(row.path).toBe(row.depth);
      expect(row.eventAncestors).toBe(row.events * row.depth);
      expect(row.policyAncestors).toBe(row.policies * row.depth);
    }
    expect(rows.at(-1)).toMatchObject({ events: 2, policies: 1 });
  });
});
