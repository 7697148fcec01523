import type { PolicyRules } from '../config.js';
import { invalidState } from '../errors/errors.js';
import { withQuotas } from '../limits/quotas.js';
import { compareDates, todayUtc } from '../values/calendar-date.js';
import { applyChanges } from './policy-change.js';
import { draftPolicy, insertPolicy, ownFields, withNumberRetries, type PolicyFields } from './create-policy.js';
import type { RenewPolicyInput } from './policy-lifecycle.input.js';
import { withLockedLedger, type LedgerScope, type PolicyLedger } from './policy-ledger.js';
import type { PolicyRead } from './policy.reads.js';
import { priceBody, quotedFields } from './priced-body.js';
import { inRenewalWindow, renewalTerm, renewalWindowCloses, renewalWindowOpens } from './renewal-term.js';

/**
 * Renews a policy (contract section 14, "Renew"): a successor in the same organization with
 * the same owner and pet (as the last change left them, even one dated after today), from the old expirationDate for one year,
 * on `coverageSlug` or the current plan at today's catalog price. The successor, its `renewal`
 * transaction owning its premium schedule, and the `policy.renewed` event (the new policy) are
 * one statement, written under the old policy's row lock, so of racing renewals exactly one
 * sees a policy not yet renewed; `renewal_of` is unique besides. Answers the new policy.
 */
export function renewPolicy(scope: LedgerScope, rules: PolicyRules, number: number, input: RenewPolicyInput): Promise<PolicyRead> {
  // A server-assigned number that lost a race with a chosen one runs the whole transaction again.
  return withNumberRetries(scope, input.number, async () => {
    try {
      return await withLockedLedger(scope, number, async (tx, ledger) => {
        // The successor starts when this term ends: the owner, pet and plan as the last change
        // left them, including a change dated after today (reads show today's values).
        const policy = applyChanges(ledger.policy, ledger.transactions);
        const term = renewalTerm(policy.expirationDate);
        if (!term) throw invalidState(`Policy ${policy.number}'s successor would end after 9999-12-31.`);
        // The body first (as cancellation's free_look rule): an unknown plan is 400 whatever the policy's state.
        const { organization, coverage, schedule } = await priceBody(tx, scope.principal, {
          organizationId: policy.organizationId,
          coverageSlug: input.coverageSlug ?? policy.coverageSlug,
          ...term,
        });
        assertRenewable(ledger, rules);
        const fields: PolicyFields = {
          // The same owner and pet: the predecessor's own fields, but its number and the client's identifier, which
          // name the old policy (the successor gets the number asked for, or the next; no internalID).
          ...ownFields(policy),
          number: input.number ?? null,
          internalID: null,
          ...quotedFields({ ...policy, ...term }, coverage),
        };
        const draft = draftPolicy(fields, organization, schedule, scope.principal, {
          transaction: {
            type: 'renewal',
            // What the successor changes of its predecessor: the link, and the plan when another was asked for.
            changes: {
              renewalOf: { from: null, to: policy.number },
              ...(coverage.slug !== policy.coverageSlug ? { coverageSlug: { from: policy.coverageSlug, to: coverage.slug } } : {}),
            },
          },
          event: 'policy.renewed',
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

/** Not cancelled nor with a cancellation scheduled, not renewed, and in the window. */
function assertRenewable({ policy, cancellation }: PolicyLedger, rules: PolicyRules): void {
  if (cancellation) {
    throw invalidState(
      `Policy ${policy.number} has a cancellation effective ${cancellation.effectiveDate}: a cancelled policy is not renewed (reinstate it first).`,
    );
  }
  if (policy.renewedBy != null) throw invalidState(`Policy ${policy.number} has already been renewed by policy ${policy.renewedBy}.`);
  const today = todayUtc();
  if (!inRenewalWindow(policy.expirationDate, { windowDays: rules.renewalWindowDays, lateDays: rules.renewalLateDays }, today)) {
    const closes = renewalWindowCloses(policy.expirationDate, rules.renewalLateDays);
    throw invalidState(
      compareDates(today, closes) > 0
        ? `Policy ${policy.number} could be renewed until ${closes}, ${rules.renewalLateDays} days after its expirationDate ` +
            `(${policy.expirationDate}): it has lapsed; issue a new policy instead.`
        : `Policy ${policy.number} can be renewed from ${renewalWindowOpens(policy.expirationDate, rules.renewalWindowDays)}, ` +
            `${rules.renewalWindowDays} days before its expirationDate (${policy.expirationDate}).`,
    );
  }
}

/** A unique violation of `renewal_of`, as pg reports it. */
function isRenewalTaken(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'policy_renewal_of_unique';
}
