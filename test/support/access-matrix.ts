import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { todayUtc } from '../../src/values/calendar-date.js';
import { organizationBody, policyBody } from './fixtures.js';
import type { Client } from './http.js';

/** The test tree: A is the root; B and B2 its children; C under B, D under C, E under D; C2 under B2. */
export const ALL = ['A', 'B', 'C', 'D', 'E', 'B2', 'C2'];

/**
 * Principal -> the organizations (of the test tree, by name) it may read; every other one must
 * look missing. `org` maps names to the ids the test created; it is read when a test runs.
 */
export function accessMatrix(org: Record<string, string>): Array<[string, () => { sub: string; org?: string }, string[]]> {
  return [
    [
      'org claim B (reads its descendants, not its parent or sibling or cousin)',
      () => ({ sub: 'someone', org: org.B }),
      ['B', 'C', 'D', 'E'],
    ],
    ['org claim D (a child cannot read its parents)', () => ({ sub: 'someone', org: org.D }), ['D', 'E']],
    ['org claim E (a leaf reads only itself)', () => ({ sub: 'someone', org: org.E }), ['E']],
    ['org claim B2 (the sibling subtree only)', () => ({ sub: 'someone', org: org.B2 }), ['B2', 'C2']],
    ['alice by sub, no org claim (owner of the root)', () => ({ sub: 'alice' }), ALL],
    ['bob by sub (created C, so C and below)', () => ({ sub: 'bob' }), ['C', 'D', 'E']],
    ['cara by sub (created the cousin C2 only)', () => ({ sub: 'cara' }), ['C2']],
    ['dave by sub with org claim E (sub reach D and E, org reach E)', () => ({ sub: 'dave', org: org.E }), ['D', 'E']],
    ['a stranger', () => ({ sub: 'mallory' }), []],
    ['a stranger claiming an org that does not exist', () => ({ sub: 'mallory', org: randomUUID() }), []],
  ];
}

/**
 * Every REST read of one policy, by its number: each answers 200 exactly where the policy's
 * organization is readable, and 404 (the same 404 as a missing policy) everywhere else. A new
 * route on a policy joins this list, and the matrix covers it.
 */
export function policyReadPaths(number: number | string): string[] {
  return [`/api/v1/policy/${number}`, `/api/v1/policy/${number}/transactions`, `/api/v1/policy/${number}/payments`];
}

/**
 * Every REST write on one policy, with a body that changes nothing where it is allowed, and the
 * code it answers there: a change or a cancellation dated outside any term of the test tree, a
 * reinstatement without a cancellation to undo and a refund beyond any credit (409
 * INVALID_STATE: looked at, and refused on its state), a renewal to the policy's own number (409: CONFLICT once the renewal window of the test
 * tree's policies, 60 days before 2027-01-01, is open, INVALID_STATE before; an unknown plan is a
 * body check since issue 25, answered 400 before any policy is looked at, so it cannot tell in
 * reach from out of reach). Where the policy's organization is out of reach
 * each answers 404, as the reads do.
 */
export function policyWritePaths(number: number | string): Array<[string, object, { status: number; code: string }]> {
  const refused = { status: 409, code: 'INVALID_STATE' };
  return [
    [`/api/v1/policy/${number}/changes`, { effectiveDate: '2099-01-01', petName: 'Renamed' }, refused],
    [`/api/v1/policy/${number}/cancellation`, { effectiveDate: '2099-01-01', reason: 'other' }, refused],
    [`/api/v1/policy/${number}/reinstatement`, {}, refused],
    // A refund beyond any credit balance (contract section 19): looked at, and refused on the policy's billing.
    [`/api/v1/policy/${number}/refunds`, { amount: 100_000_000, reference: 'matrix-refund' }, refused],
    [
      `/api/v1/policy/${number}/renewal`,
      { number: Number(number) },
      { status: 409, code: todayUtc() >= '2026-11-02' ? 'CONFLICT' : 'INVALID_STATE' },
    ],
  ];
}

/**
 * Every REST write on one organization, with a body that changes nothing: where the organization
 * is in reach each answers 200 with its version unchanged (and no event), elsewhere 404, as the
 * reads do. A new write route on an organization joins this list.
 */
export function organizationWritePaths(id: string): Array<[method: string, path: string, body: object]> {
  return [['PATCH', `/api/v1/organization/${id}`, {}]];
}

type Create = (name: string, claims: { sub: string; org?: string }, parentId?: string) => Promise<void>;

/** Builds the test tree through `create` (which records each id in the `org` map it closes over). */
export async function buildTestTree(create: Create, org: Record<string, string>): Promise<void> {
  await create('A', { sub: 'alice' });
  await create('B', { sub: 'alice', org: org.A });
  await create('B2', { sub: 'alice' }, org.A);
  await create('C', { sub: 'bob', org: org.B });
  await create('D', { sub: 'dave', org: org.C });
  await create('E', { sub: 'dave', org: org.D });
  await create('C2', { sub: 'cara', org: org.B2 });
}

/** The test tree as made through REST: each organization's id, its policy's number and its quote's id, by name. */
export interface RestTree {
  org: Record<string, string>;
  policy: Record<string, number>;
  quote: Record<string, string>;
}

/**
 * Builds the test tree through REST on `client` (a started service or in process): each
 * organization created by its principal, with a policy numbered after it and a quote. Fills the
 * records of `tree` in place (a matrix built while the tests are collected holds them).
 */
export function buildRestTree(client: Client, tree: RestTree): Promise<void> {
  const { org, policy, quote } = tree;
  const create: Create = async (name, claims, parentId) => {
    const token = await client.token(claims);
    const body = organizationBody({ legalName: `Org ${name}`, ...(parentId ? { parentId } : {}) });
    const response = await client.request('POST', '/api/v1/organization', { token, body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    org[name] = response.body.id;
    policy[name] = 1000 + ALL.indexOf(name);
    const created = await client.request('POST', '/api/v1/policy', {
      token,
      body: policyBody({ organizationId: org[name], number: policy[name] }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const quoted = await client.request('POST', '/api/v1/quote', { token, body: policyBody({ organizationId: org[name] }) });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
    quote[name] = quoted.body.id;
  };
  return buildTestTree(create, org);
}
