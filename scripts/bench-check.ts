import { randomUUID } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintToken } from '../src/auth/token-minter.js';
import { freePort, startEmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { createLogger } from '../src/logger.js';
import { START_FLAGS } from '../src/v8-flags.js';
import { addDays, addMonthsClamped, todayUtc } from '../src/values/calendar-date.js';
import { benchEnv, JWT_SECRET, LIMITS_HIGH, POLICY_QUERY, ready } from './bench-support.js';
import { benchScenarios, byDocumentId, deepParentsOf, roundRobin, trustedPolicyDocument, type BenchRequest } from './bench-scenarios.js';
import type { SeedTree } from './seed.js';

/**
 * `npm run bench:check`: does the baseline (bench-baseline.ts) answer what the service answers?
 * A few dozen requests, no load. Builds, seeds a small temporary database (200 organizations
 * at depth 20, 2,000 policies), starts the service as the bench does (the trusted document's
 * manifest loaded) and the baseline on it, and adds through the service's API what the seed
 * lacks: an organization with every field (an address with extra properties, bank accounts,
 * owners, a change), and policies with an internalID and both dates of birth, mid-term changes
 * (in effect and not yet), a cancellation ahead and one in effect, a reinstatement, a renewal
 * and its successor. Then it sends the same requests to both: every scenario of the bench
 * (bench-scenarios.ts) a few times, and each read of those records. Bodies must be equal byte
 * for byte (creates with their ids and numbers masked); on any difference it prints where the
 * parsed bodies first differ (a value, or the keys' order) and exits 1. Statuses must agree,
 * and REST GET organization's ETag.
 */
const day = (offset: number) => addDays(todayUtc(), offset);

run('npm', ['run', 'build', '--silent']);
const dataDir = mkdtempSync(join(tmpdir(), 'org-policy-bench-check-'));
run('node', ['dist/scripts/seed.js', '--orgs', '200', '--policies', '2000', '--depth', '20'], { DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8')) as { trees: SeedTree[] };
const trusted = trustedPolicyDocument();
const manifestPath = join(dataDir, 'persisted-documents.json');
writeFileSync(manifestPath, JSON.stringify({ [trusted.id]: trusted.text }));

const database = await startEmbeddedPostgres(dataDir, createLogger('warn'));
const env = {
  ...benchEnv(database.url),
  GRAPHQL_TRUSTED_DOCUMENTS: manifestPath,
  ...LIMITS_HIGH,
};
const [servicePort, baselinePort] = [await freePort(), await freePort()];
const children: ChildProcess[] = [];
const failures: string[] = [];
let compared = 0;

try {
  children.push(
    spawn('node', [...START_FLAGS, 'dist/src/main.js'], {
      env: { ...env, PORT: String(servicePort) },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  await ready(servicePort);
  children.push(
    spawn('node', ['dist/scripts/bench-baseline.js'], {
      env: { ...env, PORT: String(baselinePort) },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  await ready(baselinePort);

  const trees = seed.trees.filter((tree) => tree.deepPolicies.length > 0);
  if (trees.length < 2) throw new Error('the seed made fewer than two full trees');
  const deepParents = await deepParentsOf(database.url, trees);
  const secret = new TextEncoder().encode(JWT_SECRET);
  const tokens = await Promise.all(trees.map((tree) => mintToken(secret, { sub: tree.ownerSub, org: tree.rootId, expiresIn: 3600 })));

  // The bench's scenarios, each a few times over both trees, the same request to both servers.
  const pick = roundRobin(trees, tokens);
  const scenarios = [
    ...benchScenarios(pick, deepParents),
    ['GraphQL policy query, trusted document id', byDocumentId(pick, trusted.id)] as const,
  ];
  for (const [name, next] of scenarios) {
    for (let index = 0; index < 4; index++) {
      const request = next();
      if (name === 'GraphQL policy query, trusted document id') {
        // The bench sends the baseline the text (it has no manifest) and the service the id.
        const text = { ...request, body: JSON.stringify({ query: POLICY_QUERY, variables: JSON.parse(request.body!).variables }) };
        await compare(name, request, text);
      } else {
        await compare(name, request, request, name.includes('POST') ? maskCreated : undefined);
      }
    }
  }

  // What the seed lacks, made through the service as the first tree's owner, under a deepest organization.
  const [tree, token] = [trees[0], tokens[0]];
  const service = (method: string, path: string, body?: unknown) =>
    send(servicePort, { method, path, token, body: body === undefined ? undefined : JSON.stringify(body) });
  const made = async (method: string, path: string, body: unknown) => {
    const answer = await service(method, path, body);
    if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return JSON.parse(answer.text);
  };
  const address = {
    line1: '1 Main St',
    city: 'Springfield',
    division: 'IL',
    postal: '62701',
    country: 'US',
    unit: '4B',
    '10': 'ten',
    notes: { gate: 'back', floors: [1, 2.5, null] },
  };
  const organization = await made('POST', '/api/v1/organization', {
    parentId: tree.deepest[0],
    name: 'Check "Quoted" Ünïcode\\ Co',
    legalName: 'Check Legal LLC',
    legalType: 'llc',
    taxId: '12-3456789',
    description: 'Line one\nline two\ttabbed',
    logo: 'https://example.com/logo.png',
    type: 'clinic',
    descriptor: 'CHECK CO',
    phone: '+1 555 010 0000',
    email: 'check@example.com',
    website: 'https://example.com',
    address,
    bankAccounts: [
      { nickname: 'Main', routing: '110000000', account: '000111222333444' },
      { routing: '110000001', account: '999888777666' },
    ],
    owners: [
      {
        firstname: 'Ada',
        lastname: 'L',
        birthdate: '1970-01-02',
        taxId: '987-65-4321',
        email: 'ada@example.com',
        phone: '+1 555 010 0001',
        ownership: 33.3,
        address,
      },
      { firstname: 'Bo', lastname: 'M', ownership: 0.1 },
    ],
  });
  const changedOrganization = await made('POST', '/api/v1/organization', {
    parentId: organization.id,
    legalName: 'Changed LLC',
    legalType: 'llc',
    taxId: '98-7654321',
    address: { city: 'Old' },
  });
  await made('PATCH', `/api/v1/organization/${changedOrganization.id}`, { name: 'Changed', address: { line2: 'Suite 9', city: null } });

  const policy = async (effectiveDate: string, overrides: Record<string, unknown> = {}) =>
    (await made('POST', '/api/v1/policy', {
      organizationId: organization.id,
      ownerFirstname: 'Rosa',
      ownerLastname: 'Diaz',
      petName: 'Biscuit',
      effectiveDate,
      expirationDate: addMonthsClamped(effectiveDate, 12),
      coverageSlug: 'accident-illness-basic',
      ...overrides,
    })) as { number: number; effectiveDate: string };
  const numbers: number[] = [];
  // Every optional field, and three changes: a plan change on a past billing date and a name in effect today, one ahead.
  const changed = await policy(day(-70), { internalID: 'check-1', ownerDOB: '1980-04-02', petDOB: '2020-03-03' });
  await made('POST', `/api/v1/policy/${changed.number}/changes`, {
    effectiveDate: addMonthsClamped(changed.effectiveDate, 2),
    coverageSlug: 'accident-illness-plus',
  });
  await made('POST', `/api/v1/policy/${changed.number}/changes`, {
    effectiveDate: day(0),
    petName: 'Biscuit "II"',
    ownerLastname: 'Diaz-Park',
  });
  await made('POST', `/api/v1/policy/${changed.number}/changes`, { effectiveDate: day(5), ownerFirstname: 'Later' });
  numbers.push(changed.number);
  // A cancellation ahead (short rate, with a fee), one in effect, and one reinstated (reversals).
  const ahead = await policy(day(-30));
  await made('POST', `/api/v1/policy/${ahead.number}/cancellation`, { effectiveDate: day(30), reason: 'insured_request' });
  const cancelled = await policy(day(-100));
  await made('POST', `/api/v1/policy/${cancelled.number}/cancellation`, { effectiveDate: day(0), reason: 'other' });
  const reinstated = await policy(day(-20));
  await made('POST', `/api/v1/policy/${reinstated.number}/cancellation`, { effectiveDate: day(10), reason: 'other' });
  await made('POST', `/api/v1/policy/${reinstated.number}/reinstatement`, {});
  // A renewal and its successor (pending), a policy not yet in force, one expired.
  const renewed = await policy(addMonthsClamped(day(30), -12));
  const successor = await made('POST', `/api/v1/policy/${renewed.number}/renewal`, {});
  const pending = await policy(day(10), { internalID: 'check-2' });
  const expired = await policy(addMonthsClamped(day(-10), -12));
  numbers.push(ahead.number, cancelled.number, reinstated.number, renewed.number, successor.number, pending.number, expired.number);

  for (const number of numbers) {
    await compare('REST GET policy (made)', { method: 'GET', path: `/api/v1/policy/${number}`, token });
    const text = { method: 'POST', path: '/graphql', token, body: JSON.stringify({ query: POLICY_QUERY, variables: { number } }) };
    await compare('GraphQL policy query (made)', text);
    await compare(
      'GraphQL policy query, trusted document id (made)',
      { ...text, body: JSON.stringify({ documentId: trusted.id, variables: { number } }) },
      text,
    );
  }
  for (const id of [organization.id, changedOrganization.id, tree.deepest[0], tree.rootId]) {
    await compare('REST GET organization (made)', { method: 'GET', path: `/api/v1/organization/${id}`, token });
  }
  for (const id of [organization.id, tree.deepest[0], tree.rootId]) {
    await compare('REST GET policy list (made)', {
      method: 'GET',
      path: `/api/v1/policy?organizationId=${id}&includeDescendants=true&limit=20`,
      token,
    });
  }
  // Out of reach (another tree's) and missing: the same status (the bodies are each server's own error).
  const other = trees[1];
  for (const path of [
    `/api/v1/policy/${other.deepPolicies[0]}`,
    '/api/v1/policy/999999999',
    `/api/v1/organization/${other.rootId}`,
    `/api/v1/organization/${randomUUID()}`,
    `/api/v1/policy?organizationId=${other.rootId}&includeDescendants=true&limit=20`,
  ]) {
    await compare('out of reach', { method: 'GET', path, token }, undefined, undefined, true);
  }
} finally {
  for (const child of children) await stop(child);
  await database.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`\nbench:check: ${failures.length} of ${compared} answers differ between the service and the baseline:\n`);
  for (const failure of failures) console.error(`- ${failure}`);
  process.exit(1);
}
console.log(`bench:check: the baseline answered all ${compared} requests exactly as the service did`);

/** Sends `request` to the service and `baselineRequest` (the same unless given) to the baseline, and records any difference. */
async function compare(
  name: string,
  request: BenchRequest,
  baselineRequest: BenchRequest = request,
  mask?: (body: unknown) => unknown,
  statusOnly = false,
): Promise<void> {
  compared += 1;
  const [service, baseline] = [await send(servicePort, request), await send(baselinePort, baselineRequest)];
  const what = `${name}: ${request.method} ${request.path}${request.body ? ` ${request.body}` : ''}`;
  if (service.status !== baseline.status) {
    failures.push(
      `${what}: status ${service.status} from the service, ${baseline.status} from the baseline (${baseline.text.slice(0, 200)})`,
    );
    return;
  }
  if (statusOnly) return;
  if (service.status !== 200) {
    failures.push(`${what}: the service answered ${service.status} ${service.text.slice(0, 300)}`);
    return;
  }
  if (service.etag !== baseline.etag) failures.push(`${what}: ETag ${service.etag} from the service, ${baseline.etag} from the baseline`);
  const [serviceText, baselineText] = mask
    ? [JSON.stringify(mask(JSON.parse(service.text))), JSON.stringify(mask(JSON.parse(baseline.text)))]
    : [service.text, baseline.text];
  if (serviceText === baselineText) return;
  let parsed: [unknown, unknown];
  try {
    parsed = [JSON.parse(serviceText), JSON.parse(baselineText)];
  } catch {
    failures.push(`${what}: the baseline's body is not JSON: ${baselineText.slice(0, 300)}`);
    return;
  }
  const at = [...serviceText].findIndex((char, index) => char !== baselineText[index]);
  const difference = firstDifference(parsed[0], parsed[1], '$') ?? 'the same JSON in other bytes';
  failures.push(
    `${what}: ${difference}; bytes differ from offset ${at}: service …${serviceText.slice(Math.max(0, at - 40), at + 60)}… baseline …${baselineText.slice(Math.max(0, at - 40), at + 60)}…`,
  );
}

/** Where two parsed bodies first differ: a value, a length, or the keys (names or order). */
function firstDifference(service: unknown, baseline: unknown, path: string): string | null {
  if (Array.isArray(service) && Array.isArray(baseline)) {
    if (service.length !== baseline.length)
      return `${path}: ${service.length} items from the service, ${baseline.length} from the baseline`;
    for (const [index, item] of service.entries()) {
      const found = firstDifference(item, baseline[index], `${path}[${index}]`);
      if (found) return found;
    }
    return null;
  }
  if (isObject(service) && isObject(baseline)) {
    const [keys, baselineKeys] = [Object.keys(service), Object.keys(baseline)];
    if (keys.join() !== baselineKeys.join())
      return `${path}: keys ${keys.join(',')} from the service, ${baselineKeys.join(',')} from the baseline`;
    for (const key of keys) {
      const found = firstDifference(service[key], baseline[key], `${path}.${key}`);
      if (found) return found;
    }
    return null;
  }
  return Object.is(service, baseline)
    ? null
    : `${path}: ${JSON.stringify(service)} from the service, ${JSON.stringify(baseline)} from the baseline`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A create's answer with what differs from one create to the next (ids, number) masked. */
function maskCreated(body: unknown): unknown {
  const policy = body as { id: string; number: number; charges: Array<{ id: string; transactionId: string }> };
  return {
    ...policy,
    id: 'id',
    number: 0,
    charges: policy.charges.map((charge) => ({ ...charge, id: 'id', transactionId: 'id' })),
  };
}

async function send(port: number, request: BenchRequest): Promise<{ status: number; text: string; etag: string | null }> {
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method,
    headers: { authorization: `Bearer ${request.token}`, 'content-type': 'application/json' },
    body: request.body,
  });
  return { status: response.status, text: await response.text(), etag: response.headers.get('etag') };
}

function run(command: string, args: string[], extraEnv: Record<string, string> = {}): void {
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...extraEnv } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
