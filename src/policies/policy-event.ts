import { inKeyOrder, type KeyOrder } from '../values/key-order.js';
import { policyStatus } from './policy-status.js';
import type { PolicyRead } from './policy.reads.js';

/** A coverage snapshot's keys, as answers give them. */
export const COVERAGE_KEY_ORDER: KeyOrder = [
  'slug',
  'name',
  'deductible',
  'reimbursementRate',
  'annualLimit',
  'monthlyPremium',
  'currency',
];

/**
 * The REST policy answer's keys, in its order (contract section 18: every field but cvc, in the
 * order the contract lists them, then section 14's). src/rest/operations.ts selects the same,
 * and test/unit/event-key-order.test.ts holds the two together.
 */
export const POLICY_KEY_ORDER: KeyOrder = [
  ...[
    'id',
    'number',
    'internalID',
    'ownerFirstname',
    'ownerLastname',
    'ownerDOB',
    'petName',
    'petDOB',
    'effectiveDate',
    'expirationDate',
    'coverageSlug',
  ],
  ['coverage', COVERAGE_KEY_ORDER],
  ['charges', ['id', 'type', 'periodStart', 'periodEnd', 'dueDate', 'amount', 'currency', 'status', 'transactionId', 'reverses']],
  ['organization', ['id', 'name', 'parentId']],
  'status',
  ['cancellation', ['effectiveDate', 'reason', 'method', 'credited', 'fee', 'createdAt']],
  'renewalOf',
  'renewedBy',
];

/**
 * A policy event's object (`policy.created`, `policy.changed`, `policy.cancelled`, `policy.reinstated`, `policy.renewed`): the
 * policy as the REST read answers it at that moment, key for key and in its order, with its
 * status then and its organization as the read shape names it.
 */
export function policyEventObject(policy: PolicyRead): object {
  return inKeyOrder(POLICY_KEY_ORDER, { ...policy, status: policyStatus(policy) }) as object;
}
