import { expect } from 'vitest';
import { addDays, addMonthsClamped, todayUtc } from '../../src/values/calendar-date.js';
import { policyBody } from './fixtures.js';
import type { Client } from './http.js';
import type { TestService } from './test-service.js';

/**
 * A policy's life after issuance (contract section 14: change, cancel, reinstate) in tests, on a
 * started service or in process: one-year policies relative to today, the lifecycle's routes and
 * mutations, and what a test reads of a policy's ledger.
 */

/** Today (UTC) plus `offset` days: what reads show, and the windows, are judged against today. */
export const day = (offset: number) => addDays(todayUtc(), offset);

const CANCELLATION_FIELDS = `number status cancellation { effectiveDate reason method credited fee createdAt }
  charges { id type periodStart periodEnd dueDate amount currency status transactionId reverses }`;
export const CANCEL = `mutation ($number: SafeInt!, $input: CancelPolicyInput!) { cancelPolicy(number: $number, input: $input) { ${CANCELLATION_FIELDS} } }`;
export const REINSTATE = `mutation ($number: SafeInt!, $input: ReinstatePolicyInput!) { reinstatePolicy(number: $number, input: $input) { ${CANCELLATION_FIELDS} } }`;

const CHANGE_FIELDS = `number petName petDOB ownerFirstname ownerLastname ownerDOB coverageSlug status
  coverage { slug monthlyPremium }
  charges { id type periodStart periodEnd dueDate amount transactionId }
  transactions(first: 50) { edges { node { type effectiveDate changes } } }`;
export const CHANGE = `mutation ($number: SafeInt!, $input: ChangePolicyInput!) { changePolicy(number: $number, input: $input) { ${CHANGE_FIELDS} } }`;

export interface LifecycleOptions {
  /** The number of the first policy made (each test file its own range). */
  firstNumber: number;
  /** The plan of the policies made, unless a test overrides it. */
  coverageSlug: string;
}

/** Policies of the caller of `token()` on `service`, and their lifecycle's routes. */
export function policyLifecycle(service: Client & Pick<TestService, 'sql'>, token: () => string, options: LifecycleOptions) {
  let nextNumber = options.firstNumber;
  const post = (number: number, action: string, body: object, headers: Record<string, string> = {}) =>
    service.request('POST', `/api/v1/policy/${number}/${action}`, { token: token(), body, headers });
  return {
    /** A one-year policy starting `startOffset` days from today (a year ending 12 billing dates on). */
    async policy(startOffset: number, overrides: Record<string, unknown> = {}) {
      const effectiveDate = day(startOffset);
      const expirationDate = addMonthsClamped(effectiveDate, 12);
      const number = nextNumber++;
      const created = await service.request('POST', '/api/v1/policy', {
        token: token(),
        body: policyBody({ number, effectiveDate, expirationDate, coverageSlug: options.coverageSlug, ...overrides }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      return { number, effectiveDate, expirationDate };
    },
    cancel: (number: number, body: object, headers: Record<string, string> = {}) => post(number, 'cancellation', body, headers),
    reinstate: (number: number, headers: Record<string, string> = {}) => post(number, 'reinstatement', {}, headers),
    change: (number: number, body: object, headers: Record<string, string> = {}) => post(number, 'changes', body, headers),
    /** The policy's own fields as GraphQL reads them (the REST read carries the same, contract section 18). */
    fields: async (number: number) =>
      (
        await service.request('POST', '/graphql', {
          token: token(),
          body: {
            query: `{ policy(number: ${number}) { petName petDOB ownerFirstname ownerLastname ownerDOB coverageSlug coverage { slug monthlyPremium } } }`,
          },
        })
      ).body.data.policy,
    /** How many charges the policy has. */
    ledgerCount: async (number: number) =>
      (
        await service.sql<{ n: number }>(
          'select count(*)::int as n from charge c join policy p on p.id = c.policy_id where p.number = $1',
          [number],
        )
      )[0].n,
    /** What a refused request must leave as it was: the policy's charges, transactions and events. */
    written: async (number: number) =>
      (
        await service.sql<{ charges: number; transactions: number; events: number }>(
          `select (select count(*)::int from charge c where c.policy_id = p.id) as charges,
            (select count(*)::int from policy_transaction t where t.policy_id = p.id) as transactions,
            (select count(*)::int from event e where (e.data->'object'->>'number')::bigint = p.number) as events
           from policy p where p.number = $1`,
          [number],
        )
      )[0],
  };
}

const RENEWAL_FIELDS = `number status renewalOf renewedBy internalID ownerFirstname ownerLastname ownerDOB petName petDOB effectiveDate expirationDate
  organization { id }
  coverage { slug monthlyPremium }
  charges { id type periodStart periodEnd dueDate amount currency status transactionId reverses }`;
export const RENEW = `mutation ($number: SafeInt!, $input: RenewPolicyInput!) { renewPolicy(number: $number, input: $input) { ${RENEWAL_FIELDS} } }`;
export const READ_RENEWAL_FIELDS = `query ($number: SafeInt!) { policy(number: $number) { ${RENEWAL_FIELDS} } }`;

/** Policies of the caller of `token()` on `service` to renew (contract section 14, "Renew"), and the renewal's route. */
export function policyRenewals(service: Client & Pick<TestService, 'sql'>, token: () => string, firstNumber: number) {
  let nextNumber = firstNumber;
  return {
    /** A policy ending `endOffset` days from today, starting a year (365 days) before that unless said. */
    async policy(endOffset: number, overrides: Record<string, unknown> = {}) {
      const expirationDate = day(endOffset);
      const effectiveDate = day(endOffset - 365);
      const number = nextNumber++;
      const body = policyBody({
        number,
        effectiveDate,
        expirationDate,
        ownerDOB: '1980-04-02',
        petDOB: '2020-03-03',
        internalID: `old-${number}`,
        ...overrides,
      });
      const created = await service.request('POST', '/api/v1/policy', { token: token(), body });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      return { number, effectiveDate: body.effectiveDate as string, expirationDate: body.expirationDate as string };
    },
    renew: (number: number, body: object, headers: Record<string, string> = {}, as = token()) =>
      service.request('POST', `/api/v1/policy/${number}/renewal`, { token: as, body, headers }),
    /** The policy with the renewal's fields, as GraphQL reads it. */
    read: async (number: number) =>
      (await service.request('POST', '/graphql', { token: token(), body: { query: READ_RENEWAL_FIELDS, variables: { number } } })).body.data
        .policy,
    policyCount: async () => (await service.sql<{ n: number }>('select count(*)::int as n from policy'))[0].n,
  };
}

/** A policy's transactions, a page of them (contract section 14, "Transactions"). */
export const TRANSACTIONS = `query ($number: SafeInt!, $first: Int!, $after: String) {
  policy(number: $number) {
    transactions(first: $first, after: $after) {
      edges { cursor node { id type effectiveDate createdAt createdBy changes } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}`;
