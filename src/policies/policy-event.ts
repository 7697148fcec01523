import { inKeyOrder, keyOrderOf, type KeyOrder } from '../values/key-order.js';
import { policyStatus } from './policy-status.js';
import type { ChargeRead, PolicyRead } from './policy.reads.js';
import type { TransactionType } from './policy-transaction.entity.js';
import type { PaymentKind } from './ledger/kinds.js';
import { policyBilling } from './policy-billing.js';

/**
 * The REST policy answer (contract section 18: every field but cvc, in the order the contract
 * lists them, then section 14's) as a GraphQL fragment: src/rest/operations.ts spreads it into
 * every policy route's document, and a policy event's object has its keys in its order, but
 * `charges` (POLICY_EVENT_KEY_ORDER). A policy field is added here, once, for all of them.
 */
export const POLICY_ANSWER = /* GraphQL */ `
  fragment PolicyAnswer on Policy {
    id number internalID ownerFirstname ownerLastname ownerDOB petName petDOB effectiveDate expirationDate coverageSlug
    coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency }
    charges { id type periodStart periodEnd dueDate amount currency status transactionId reverses }
    organization { id name parentId }
    status billing { billed paid balance pastDue status nextDueDate nextDueAmount }
    cancellation { effectiveDate reason method credited fee createdAt } renewalOf renewedBy version
  }
`;

/** The REST policy answer's keys, in its order. */
export const POLICY_KEY_ORDER: KeyOrder = keyOrderOf(POLICY_ANSWER);

const CHARGES_ENTRY = POLICY_KEY_ORDER.find(
  (entry): entry is readonly [string, KeyOrder] => typeof entry !== 'string' && entry[0] === 'charges',
);
if (!CHARGES_ENTRY) throw new Error('POLICY_ANSWER selects charges');

/** A charge's keys, in the REST answer's order: those of `data.transaction.charges` too. */
const CHARGE_KEY_ORDER = CHARGES_ENTRY[1];

/**
 * A policy event's object: the REST answer without `charges` (contract section 14, "Versions and
 * ordering"). An event stays small however long the ledger grows (issue 37: 264 KB of event
 * text per request on a 972-charge ledger); `data.transaction` has what the step wrote, and the
 * whole ledger is one read away.
 */
export const POLICY_EVENT_KEY_ORDER: KeyOrder = POLICY_KEY_ORDER.filter((entry) => entry !== CHARGES_ENTRY);

/** The transaction a policy event records, with the charges it wrote (contract section 14). */
export interface EventTransaction {
  id: string;
  /** A payment's or a refund's event carries it here too (contract section 14, "Versions and ordering"): no charges, `changes.paid`. */
  type: TransactionType | PaymentKind;
  effectiveDate: string;
  changes: Record<string, { from: unknown; to: unknown }>;
  charges: readonly ChargeRead[];
}

/**
 * A policy event's `data` besides what every event has (`policy.created`, `policy.changed`,
 * `policy.cancelled`, `policy.reinstated`, `policy.renewed`): `object`, the policy as the REST
 * read answers it at that moment without its charges, key for key and in its order, with its
 * status and billing then (`graceDays`: BILLING_GRACE_DAYS); and `transaction`, `{ id, type,
 * effectiveDate, changes, charges }`, the charges in the REST answer's key order.
 */
export function policyEventData(
  policy: PolicyRead,
  transaction: EventTransaction,
  graceDays: number,
): { object: object; transaction: object } {
  return {
    object: inKeyOrder(POLICY_EVENT_KEY_ORDER, {
      ...policy,
      status: policyStatus(policy),
      billing: policyBilling(policy, graceDays),
    }) as object,
    transaction: {
      id: transaction.id,
      type: transaction.type,
      effectiveDate: transaction.effectiveDate,
      changes: transaction.changes,
      charges: inKeyOrder(CHARGE_KEY_ORDER, transaction.charges),
    },
  };
}
