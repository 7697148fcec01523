import type { PaymentEntry, TransactionEntry } from '../../observability/business-metrics.js';
import type { PolicyRead } from '../policy.reads.js';
import type { PaymentDecision } from './decide-payment.js';
import type { Decision } from './decision.js';
import { latestFields, type PolicyState } from './state.js';

/**
 * What a ledger write did, as the business metrics count it (observability/business-metrics.ts),
 * made from what the writer wrote. The writers' callers hand it to the scope's `observe` once the
 * write has committed (post.ts, create-policy.ts, issue-quote.ts).
 */

/** An opening (an issuance, or a renewal's successor) as written: its plan and its premium schedule. */
export function openingEntry(kind: 'issuance' | 'renewal', opened: Pick<PolicyRead, 'coverageSlug' | 'charges'>): TransactionEntry {
  const premium = (opened.charges ?? []).reduce((sum, charge) => (charge.type === 'premium' ? sum + charge.amount : sum), 0);
  return { kind, plan: opened.coverageSlug, planBefore: opened.coverageSlug, premium, credits: 0 };
}

/**
 * A transaction on a locked ledger (`before`: its state when decided). A change of plan credits
 * the plan it leaves and charges the new one's premiums; every other step keeps the plan.
 */
export function transactionEntry(before: PolicyState, decision: Decision): TransactionEntry {
  const planBefore = latestFields(before).coverageSlug;
  const plan = (decision.changes.coverageSlug?.to as string | undefined) ?? planBefore;
  const sum = (type: string) => decision.charges.reduce((total, charge) => (charge.type === type ? total + charge.amount : total), 0);
  const cancelled = decision.kind === 'cancellation' ? (decision.changes.cancellation?.to as { reason: string } | undefined) : undefined;
  return {
    kind: decision.kind,
    plan,
    planBefore,
    premium: sum('premium'),
    credits: -sum('credit'),
    ...(cancelled ? { cancellation: { reason: cancelled.reason, lapse: decision.lapse === true } } : {}),
  };
}

/** A payment or a refund, under the plan the policy has when it is recorded. */
export function paymentEntry(before: PolicyState, decision: PaymentDecision): PaymentEntry {
  return { kind: decision.payment.kind, plan: latestFields(before).coverageSlug, amount: decision.payment.amount };
}
