import { randomUUID } from 'node:crypto';
import { addDays, addMonthsClamped, todayUtc } from '../src/values/calendar-date.js';
import { POLICY_QUERY } from './bench-support.js';
import { benchScenarios, byDocumentId, type BenchRequest, type Pick } from './bench-scenarios.js';
import type { SeedTree } from './seed.js';

/**
 * What the baseline's check compares (scripts/bench-check.ts over HTTP, and
 * test/in-process/bench-baseline.test.ts in process): the bench's requests, and reads of records
 * with every field and in every state, each sent to the service and to the baseline
 * (bench-baseline-answers.ts), whose answers must agree byte for byte.
 */

/** One request sent to the service and to the baseline, and how their answers are compared. */
export interface Comparison {
  name: string;
  request: BenchRequest;
  /** What the baseline is sent, when not `request`. */
  baselineRequest?: BenchRequest;
  /** Masks what differs from one create to the next. */
  mask?: (body: unknown) => unknown;
  /** Only the statuses must agree (the bodies are each server's own error). */
  statusOnly?: boolean;
}

/** An answer as compared: its status, its body's text, its ETag. */
export interface Sent {
  status: number;
  text: string;
  etag: string | null;
}

/** Sends a request through the service's API as a tree's owner and returns the parsed body of its 200 (anything else throws). */
export type Made = (method: string, path: string, body: unknown) => Promise<any>;

const TRUSTED = 'GraphQL policy query, trusted document id';

/** The bench's scenarios, each `times` times over `pick`, and the read by the trusted document's id (the baseline, without a manifest, is sent the text). */
export function scenarioComparisons(pick: () => Pick, deepParents: Map<string, string>, trustedId: string, times = 4): Comparison[] {
  const scenarios = [...benchScenarios(pick, deepParents), [TRUSTED, byDocumentId(pick, trustedId)] as const];
  return scenarios.flatMap(([name, next]) =>
    Array.from({ length: times }, (): Comparison => {
      const request = next();
      if (name !== TRUSTED) return { name, request, mask: name.includes('POST') ? maskCreated : undefined };
      const text = { ...request, body: JSON.stringify({ query: POLICY_QUERY, variables: JSON.parse(request.body!).variables }) };
      return { name, request, baselineRequest: text };
    }),
  );
}

/**
 * Makes through the service, as `tree`'s owner and under one of its deepest organizations, what
 * a seed lacks: an organization with every field (an address with extra properties, bank
 * accounts, owners, a change), and policies with an internalID and both dates of birth, mid-term
 * changes (in effect and not yet), a cancellation ahead and one in effect, a reinstatement, a
 * renewal and its successor. Returns the reads of those records, and of `other`'s (another
 * owner's tree) and missing ones, whose statuses must agree.
 */
export async function madeRecordComparisons(
  made: Made,
  tree: SeedTree,
  token: string,
  other: SeedTree,
  trustedId: string,
): Promise<Comparison[]> {
  const day = (offset: number) => addDays(todayUtc(), offset);
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

  const comparisons: Comparison[] = [];
  for (const number of numbers) {
    comparisons.push({ name: 'REST GET policy (made)', request: { method: 'GET', path: `/api/v1/policy/${number}`, token } });
    const text = { method: 'POST', path: '/graphql', token, body: JSON.stringify({ query: POLICY_QUERY, variables: { number } }) };
    comparisons.push({ name: 'GraphQL policy query (made)', request: text });
    comparisons.push({
      name: 'GraphQL policy query, trusted document id (made)',
      request: { ...text, body: JSON.stringify({ documentId: trustedId, variables: { number } }) },
      baselineRequest: text,
    });
  }
  for (const id of [organization.id, changedOrganization.id, tree.deepest[0], tree.rootId]) {
    comparisons.push({ name: 'REST GET organization (made)', request: { method: 'GET', path: `/api/v1/organization/${id}`, token } });
  }
  for (const id of [organization.id, tree.deepest[0], tree.rootId]) {
    comparisons.push({
      name: 'REST GET policy list (made)',
      request: { method: 'GET', path: `/api/v1/policy?organizationId=${id}&includeDescendants=true&limit=20`, token },
    });
  }
  // Out of reach (another tree's) and missing: the same status (the bodies are each server's own error).
  for (const path of [
    `/api/v1/policy/${other.deepPolicies[0]}`,
    '/api/v1/policy/999999999',
    `/api/v1/organization/${other.rootId}`,
    `/api/v1/organization/${randomUUID()}`,
    `/api/v1/policy?organizationId=${other.rootId}&includeDescendants=true&limit=20`,
  ]) {
    comparisons.push({ name: 'out of reach', request: { method: 'GET', path, token }, statusOnly: true });
  }
  return comparisons;
}

/**
 * How the baseline's answer differs from the service's, or null when it does not: statuses must
 * agree; a 200's ETag too, and its body byte for byte (masked): else where the parsed bodies
 * first differ (a value, or the keys' order).
 */
export function difference(comparison: Comparison, service: Sent, baseline: Sent): string | null {
  const { request, mask } = comparison;
  const what = `${comparison.name}: ${request.method} ${request.path}${request.body ? ` ${request.body}` : ''}`;
  if (service.status !== baseline.status)
    return `${what}: status ${service.status} from the service, ${baseline.status} from the baseline (${baseline.text.slice(0, 200)})`;
  if (comparison.statusOnly) return null;
  if (service.status !== 200) return `${what}: the service answered ${service.status} ${service.text.slice(0, 300)}`;
  if (service.etag !== baseline.etag) return `${what}: ETag ${service.etag} from the service, ${baseline.etag} from the baseline`;
  const [serviceText, baselineText] = mask
    ? [JSON.stringify(mask(JSON.parse(service.text))), JSON.stringify(mask(JSON.parse(baseline.text)))]
    : [service.text, baseline.text];
  if (serviceText === baselineText) return null;
  let parsed: [unknown, unknown];
  try {
    parsed = [JSON.parse(serviceText), JSON.parse(baselineText)];
  } catch {
    return `${what}: the baseline's body is not JSON: ${baselineText.slice(0, 300)}`;
  }
  const at = [...serviceText].findIndex((char, index) => char !== baselineText[index]);
  const differs = firstDifference(parsed[0], parsed[1], '$') ?? 'the same JSON in other bytes';
  return `${what}: ${differs}; bytes differ from offset ${at}: service …${serviceText.slice(Math.max(0, at - 40), at + 60)}… baseline …${baselineText.slice(Math.max(0, at - 40), at + 60)}…`;
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
