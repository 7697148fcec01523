import type { Transaction } from '../database/database.js';
import { invalidState } from '../errors/errors.js';
import { ownFields, withNumberRetries } from './create-policy.js';
import { decideRenewal, successorTerm } from './ledger/decide-renewal.js';
import type { DecideContext } from './ledger/decision.js';
import type { PolicyLedger } from './ledger/ledger-read.js';
import type { LedgerScope } from './ledger/ledger-scope.js';
import { draftPolicy, type NewPolicyFields } from './ledger/opening.js';
import { post, type Posting } from './ledger/post.js';
import { latestFields, type PolicyState } from './ledger/state.js';
import type { RenewPolicyInput } from './policy-lifecycle.input.js';
import type { PolicyRead } from './policy.reads.js';
import { priceBody, quotedFields, type PricedBody } from './priced-body.js';

/**
 * Renews a policy (contract section 14, "Renew"): a successor in the same organization with
 * the same owner and pet (as the last change left them, even one dated after today), from the old expirationDate for one year,
 * on `coverageSlug` or the current plan at today's catalog price. The successor, its `renewal`
 * transaction owning its premium schedule, and the `policy.renewed` event (the new policy) are
 * one statement, posted under the old policy's row lock (ledger/post.ts), so of racing renewals
 * exactly one sees a policy not yet renewed; `renewal_of` is unique besides. Answers the new
 * policy. The rules: ledger/decide-renewal.ts.
 */
export function renewPolicy(scope: LedgerScope, number: number, input: RenewPolicyInput): Promise<PolicyRead> {
  // A server-assigned number that lost a race with a chosen one runs the whole transaction again.
  return withNumberRetries(scope, input.number, async () => {
    try {
      return await post(scope, number, {
        command: (tx, ledger) => priceSuccessor(tx, scope, ledger, input),
        decide: (state, successor, context) => renewal(scope, input, state, successor, context),
      });
    } catch (error) {
      // Only reachable by a write that did not take the lock: the database refuses a second successor.
      if (isRenewalTaken(error)) throw invalidState(`Policy ${number} has already been renewed.`);
      throw error;
    }
  });
}

/** The old policy as the successor continues it, the successor's term, and its plan priced. */
interface PricedSuccessor extends PricedBody {
  policy: PolicyLedger['policy'];
  term: { effectiveDate: string; expirationDate: string };
}

/** Under the old policy's lock: what the successor is priced from, then priced (the catalog, the organization). */
async function priceSuccessor(
  tx: Transaction,
  scope: LedgerScope,
  ledger: PolicyLedger,
  input: RenewPolicyInput,
): Promise<PricedSuccessor> {
  // The successor starts when this term ends: the owner, pet and plan as the last change
  // left them, including a change dated after today (reads show today's values).
  const policy = { ...ledger.policy, ...latestFields(ledger.state) };
  const term = successorTerm(ledger.state);
  // The body first (as cancellation's free_look rule): an unknown plan is 400 whatever the policy's state.
  const priced = await priceBody(tx, scope.principal, {
    organizationId: policy.organizationId,
    coverageSlug: input.coverageSlug ?? policy.coverageSlug,
    ...term,
  });
  return { policy, term, ...priced };
}

/** Whether the old policy may be renewed (decide-renewal.ts), then its successor's opening. */
function renewal(
  scope: LedgerScope,
  input: RenewPolicyInput,
  state: PolicyState,
  successor: PricedSuccessor,
  context: DecideContext,
): Posting {
  const { policy, term, organization, coverage, schedule } = successor;
  const decided = decideRenewal(state, { renewedBy: policy.renewedBy ?? null, coverageSlug: coverage.slug }, context);
  const fields: NewPolicyFields = {
    // The same owner and pet: the predecessor's own fields, but its number and the client's identifier, which
    // name the old policy (the successor gets the number asked for, or the next; no internalID).
    ...ownFields(policy),
    number: input.number ?? null,
    internalID: null,
    ...quotedFields({ ...policy, ...term }, coverage),
  };
  return {
    successor: draftPolicy(fields, organization, schedule, scope, {
      transaction: { type: decided.kind, changes: decided.changes },
      event: decided.event,
      renewalOf: { id: policy.id, number: policy.number },
    }),
  };
}

/** A unique violation of `renewal_of`, as pg reports it. */
function isRenewalTaken(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'policy_renewal_of_unique';
}
