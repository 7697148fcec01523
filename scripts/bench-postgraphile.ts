import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';

/**
 * PostGraphile 4.14 as a peer of the service in the benchmark: the same policy read, from the
 * same database, under the same access rule, enforced by row-level security instead of a `where`
 * clause. PostGraphile 4 needs graphql 15 and the service graphql 16, so the peer is a package of
 * its own (scripts/postgraphile-peer/, its own lockfile) run as a child process. Paths are relative
 * to the project root, the benchmark's working directory.
 */
const PEER_DIR = 'scripts/postgraphile-peer';

/**
 * The service's GraphQL policy read in PostGraphile's schema (its default inflector): the policy
 * by its unique number, its charges in schedule order, its organization. `coverage` is jsonb,
 * served whole (dynamicJson), with the seven fields the service's query selects.
 */
export const POSTGRAPHILE_POLICY_QUERY =
  'query Policy($number: BigInt!) { policyByNumber(number: $number) { number coverage ' +
  'chargesByPolicyId(orderBy: SEQUENCE_ASC) { nodes { id type periodStart periodEnd dueDate amount currency status } } ' +
  'organizationByOrganizationId { id name parentId } } }';

/** The request body for one policy: PostGraphile's BigInt scalar takes the number as a string. */
export function postgraphilePolicyBody(number: number): string {
  return JSON.stringify({ query: POSTGRAPHILE_POLICY_QUERY, variables: { number: String(number) } });
}

/**
 * Before the peer starts: its package installed (once), and the role and row-level security it
 * reads under (rls.sql, safe to apply again) in the database. The service connects as the
 * superuser that owns the tables, which RLS does not restrict, so this leaves it unchanged.
 */
export async function preparePostgraphile(databaseUrl: string): Promise<void> {
  if (!existsSync(join(PEER_DIR, 'node_modules'))) {
    // No package of the peer has an install script (npm would not run one unapproved anyway).
    const result = spawnSync('npm', ['ci', '--prefix', PEER_DIR, '--no-audit', '--no-fund'], { stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`npm ci --prefix ${PEER_DIR} failed`);
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // One transaction: a failure leaves no half-made policies behind.
    await client.query(`begin;\n${readFileSync(join(PEER_DIR, 'rls.sql'), 'utf8')}\ncommit;`);
  } finally {
    await client.end();
  }
}

/** Starts the peer (production mode unless env says otherwise); only its errors are shown. */
export function startPostgraphile(env: NodeJS.ProcessEnv & { DATABASE_URL: string; JWT_SECRET: string; PORT: string }): ChildProcess {
  return spawn('node', [join(PEER_DIR, 'server.mjs')], {
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A policy as the service's GraphQL query returns it (`data.policy`), or as policyFromDatabase reads it. */
export interface ExpectedPolicy {
  number: number;
  coverage: Record<string, unknown>;
  charges: Array<{ id: string; amount: number } & Record<string, unknown>>;
  organization: { id: string; name: string; parentId: string | null };
}

/** The policy read directly, as the superuser (no access rule), in the service's shape. */
export async function policyFromDatabase(databaseUrl: string, number: number): Promise<ExpectedPolicy> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ body: ExpectedPolicy }>(
      `select json_build_object('number', p.number, 'coverage', p.coverage,
         'charges', (select json_agg(json_build_object('id', c.id, 'type', c.type, 'periodStart', c.period_start, 'periodEnd', c.period_end,
           'dueDate', c.due_date, 'amount', c.amount, 'currency', c.currency, 'status', c.status) order by c.sequence)
           from charge c where c.policy_id = p.id),
         'organization', json_build_object('id', o.id, 'name', o.name, 'parentId', o.parent_id)) as body
       from policy p join organization o on o.id = p.organization_id where p.number = $1`,
      [number],
    );
    if (rows.length === 0) throw new Error(`no policy ${number} in the database`);
    return rows[0].body;
  } finally {
    await client.end();
  }
}

/**
 * Proves, before anything is timed, that the peer answers the read correctly: with `allowedToken`
 * (the tree root's owner acting for the root) the policy `number` with the expected coverage, the
 * same charges in the same order (every field `expected` gives) and the organization; with
 * `deniedToken` (another tree's owner acting for that tree) null, as the service answers a
 * policy it may not see; with the allowed token's signature altered, a refusal (the tokens are
 * verified, not merely decoded). Throws, saying what differs, otherwise.
 */
export async function verifyPostgraphile(
  port: number,
  { allowedToken, deniedToken, number, expected }: { allowedToken: string; deniedToken: string; number: number; expected: ExpectedPolicy },
): Promise<void> {
  const ask = async (token: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: postgraphilePolicyBody(number),
    });
    const text = await response.text();
    return {
      status: response.status,
      text,
      body: JSON.parse(text) as { data?: { policyByNumber: PeerPolicy | null }; errors?: unknown[] },
    };
  };
  const fail = (what: string, detail: unknown) => {
    throw new Error(`PostGraphile peer, policy ${number}: ${what}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
  };

  const allowed = await ask(allowedToken);
  if (allowed.status !== 200 || allowed.body.errors) fail(`the owner's read answered ${allowed.status}`, allowed.text);
  const policy = allowed.body.data?.policyByNumber;
  if (!policy) return fail("the owner's read found no policy", allowed.text);
  if (policy.number !== String(expected.number)) fail('another policy number', policy.number);
  if (!isDeepStrictEqual(policy.coverage, expected.coverage))
    fail('another coverage', { peer: policy.coverage, expected: expected.coverage });
  const charges = policy.chargesByPolicyId.nodes;
  if (expected.charges.length === 0 || charges.length !== expected.charges.length) {
    fail(`${charges.length} charges, expected ${expected.charges.length}`, charges);
  }
  expected.charges.forEach((charge, index) => {
    for (const [field, value] of Object.entries(charge)) {
      if (charges[index][field] !== value) fail(`charge ${index} differs in ${field}`, { peer: charges[index], expected: charge });
    }
  });
  if (!isDeepStrictEqual(policy.organizationByOrganizationId, expected.organization)) {
    fail('another organization', { peer: policy.organizationByOrganizationId, expected: expected.organization });
  }

  const denied = await ask(deniedToken);
  if (denied.status !== 200 || denied.body.errors || denied.body.data?.policyByNumber !== null) {
    fail(`another tree's owner got ${denied.status}, not null`, denied.text);
  }

  const [head, payload, signature] = allowedToken.split('.');
  const forged = `${head}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  const refused = await ask(forged);
  if (refused.status === 200 && !refused.body.errors) fail('a token with an altered signature was accepted', refused.text);
}

interface PeerPolicy {
  number: string;
  coverage: unknown;
  chargesByPolicyId: { nodes: Array<Record<string, unknown>> };
  organizationByOrganizationId: unknown;
}
