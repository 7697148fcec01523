import { inKeyOrder, keyOrderOf, type KeyOrder } from '../values/key-order.js';
import { policyStatus } from './policy-status.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * The REST policy answer (contract section 18: every field but cvc, in the order the contract
 * lists them, then section 14's) as a GraphQL fragment: src/rest/operations.ts spreads it into
 * every policy route's document, and a policy event's object has its keys in its order
 * (POLICY_KEY_ORDER). A policy field is added here, once, for all of them.
 */
export const POLICY_ANSWER = /* GraphQL */ `
  fragment PolicyAnswer on Policy {
    id number internalID ownerFirstname ownerLastname ownerDOB petName petDOB effectiveDate expirationDate coverageSlug
    coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency }
    charges { id type periodStart periodEnd dueDate amount currency status transactionId reverses }
    organization { id name parentId }
    status cancellation { effectiveDate reason method credited fee createdAt } renewalOf renewedBy
  }
`;

/** The REST policy answer's keys, in its order. */
export const POLICY_KEY_ORDER: KeyOrder = keyOrderOf(POLICY_ANSWER);

/**
 * A policy event's object (`policy.created`, `policy.changed`, `policy.cancelled`, `policy.reinstated`, `policy.renewed`): the
 * policy as the REST read answers it at that moment, key for key and in its order, with its
 * status then and its organization as the read shape names it.
 */
export function policyEventObject(policy: PolicyRead): object {
  return inKeyOrder(POLICY_KEY_ORDER, { ...policy, status: policyStatus(policy) }) as object;
}
