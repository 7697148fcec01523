import type { PolicyRules } from '../config.js';
import { invalidState } from '../errors/errors.js';
import { withQuotas } from '../limits/quotas.js';
import { todayUtc } from '../values/calendar-date.js';
import { draftPolicy, insertPolicy, ownFields, withNumberRetries, type PolicyFields } from './create-policy.js';
import { decideRenewal, successorTerm } from './ledger/decide-renewal.js';
import { latestFields } from './ledger/state.js';
import type { RenewPolicyInput } from './policy-lifecycle.input.js';
import { withLockedLedger, type LedgerScope } from './policy-ledger.js';
import type { PolicyRead } from './policy.reads.js';
import { priceBody, quotedFields } from './priced-body.js';

/**
 * Renews a policy (contract section 14, "Renew"): a successor in the same organization with
 * the same owner and pet (as the last change left them, even one dated after today), from the old expirationDate for one year,
 * on `coverageSlug` or the current plan at today's catalog price. The successor, its `renewal`
 * transaction owning its premium schedule, and the `policy.renewed` event (the new policy) are
 * one statement, written under the old policy's row lock, so of racing renewals exactly one
 * sees a policy not yet renewed; `renewal_of` is unique besides. Answers the new policy.
 * The rules: ledger/decide-renewal.ts.
 */
export function renewPolicy(scope: LedgerScope, rules: PolicyRules, number: number, input: RenewPolicyInput): Promise<PolicyRead> {
  // A server-assigned number that lost a race with a chosen one runs the whole transaction again.
  return withNumberRetries(scope, input.number, async () => {
    try {
      return await withLockedLedger(scope, number, async (tx, ledger) => {
        const { state } = ledger;
        // The successor starts when this term ends: the owner, pet and plan as the last change
        // left them, including a change dated after today (reads show today's values).
        const policy = { ...ledger.policy, ...latestFields(state) };
        const term = successorTerm(state);
        // The body first (as cancellation's free_look rule): an unknown plan is 400 whatever the policy's state.
        const { organization, coverage, schedule } = await priceBody(tx, scope.principal, {
          organizationId: policy.organizationId,
          coverageSlug: input.coverageSlug ?? policy.coverageSlug,
          ...term,
        });
        const renewal = decideRenewal(
          state,
          { renewedBy: policy.renewedBy ?? null, coverageSlug: coverage.slug },
          { today: todayUtc(), rules },
        );
        const fields: PolicyFields = {
          // The same owner and pet: the predecessor's own fields, but its number and the client's identifier, which
          // name the old policy (the successor gets the number asked for, or the next; no internalID).
          ...ownFields(policy),
          number: input.number ?? null,
          internalID: null,
          ...quotedFields({ ...policy, ...term }, coverage),
        };
        const draft = draftPolicy(fields, organization, schedule, scope.principal, {
          transaction: { type: renewal.kind, changes: renewal.changes },
          event: renewal.event,
          renewalOf: { id: policy.id, number: policy.number },
        });
        const created = await withQuotas(() => insertPolicy(tx, draft));
        await scope.idempotency?.recordCreated(tx, { type: 'policy', number: created.number });
        return created;
      });
    } catch (error) {
      // Only reachable by a write that did not take the lock: the database refuses a second successor.
      if (isRenewalTaken(error)) throw invalidState(`Policy ${number} has already been renewed.`);
      throw error;
    }
  });
}

/** A unique violation of `renewal_of`, as pg reports it. */
function isRenewalTaken(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'policy_renewal_of_unique';
}
