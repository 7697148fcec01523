import { invalidState } from '../../errors/errors.js';
import { compareDates } from '../../values/calendar-date.js';
import { inRenewalWindow, renewalTerm, renewalWindowCloses, renewalWindowOpens } from './renewal-term.js';
import type { DecideContext, Decision } from './decision.js';
import { latestFields, type PolicyState } from './state.js';

/**
 * A renewal (contract section 14, "Renew") is the first transaction of a new policy, the
 * successor, made where policies are made (renew-policy.ts). What is decided on the old policy:
 * the successor's term, then (once its plan is priced, which needs the catalog: an unknown plan
 * is 400 whatever the policy's state) whether the old policy may be renewed.
 */

/** The successor's term: from the old expirationDate for one year; 409 past 9999-12-31. */
export function successorTerm({ policy }: PolicyState): { effectiveDate: string; expirationDate: string } {
  const term = renewalTerm(policy.expirationDate);
  if (!term) throw invalidState(`Policy ${policy.number}'s successor would end after 9999-12-31.`);
  return term;
}

export interface RenewCommand {
  /** The successor's number if the policy has one already (its link, read with the policy). */
  renewedBy: number | null;
  /** The slug of the plan the successor was priced at. */
  coverageSlug: string;
}

/**
 * Not cancelled nor with a cancellation scheduled, not renewed, and in the window; then the
 * successor's `renewal` transaction: what it changes of its predecessor (the link, and the plan
 * when another was asked for, against the plan the last change left).
 */
export function decideRenewal(
  state: PolicyState,
  command: RenewCommand,
  { today, rules }: DecideContext,
): Pick<Decision, 'effectiveDate' | 'changes' | 'event'> & { kind: 'renewal' } {
  const { policy, cancellation } = state;
  if (cancellation) {
    throw invalidState(
      `Policy ${policy.number} has a cancellation effective ${cancellation.effectiveDate}: a cancelled policy is not renewed (reinstate it first).`,
    );
  }
  if (command.renewedBy != null) throw invalidState(`Policy ${policy.number} has already been renewed by policy ${command.renewedBy}.`);
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
  const { coverageSlug } = latestFields(state);
  return {
    kind: 'renewal',
    effectiveDate: policy.expirationDate,
    changes: {
      renewalOf: { from: null, to: policy.number },
      ...(command.coverageSlug !== coverageSlug ? { coverageSlug: { from: coverageSlug, to: command.coverageSlug } } : {}),
    },
    event: 'policy.renewed',
  };
}
