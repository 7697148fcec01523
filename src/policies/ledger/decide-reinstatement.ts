import { invalidState } from '../../errors/errors.js';
import { canReinstate, reversalLines } from './cancellation-charges.js';
import type { DecideContext, Decision } from './decision.js';
import type { PolicyState } from './state.js';

/** A reinstatement's body is empty (`{}`; GraphQL's `clientMutationId` is ignored). */
export type ReinstateCommand = Record<string, unknown>;

/**
 * A reinstatement (contract section 14, "Reinstate"): a reversal of each charge of the
 * cancellation in force, so the charges sum to what they did before it, dated on the day that
 * cancellation took effect (never before the latest transaction). Only while the cancellation
 * lies in the future or took effect at most POLICY_REINSTATEMENT_DAYS ago, and not for fraud.
 */
export function decideReinstatement(state: PolicyState, _command: ReinstateCommand, { today, rules }: DecideContext): Decision {
  const { policy, cancellation } = state;
  if (!cancellation) throw invalidState(`Policy ${policy.number} has no cancellation to undo.`);
  const { effectiveDate, reason } = cancellation;
  if (!canReinstate({ effectiveDate, reason }, today, rules.reinstatementDays)) {
    throw invalidState(
      reason === 'fraud'
        ? `Policy ${policy.number} was cancelled for fraud: it cannot be reinstated.`
        : `Policy ${policy.number}'s cancellation took effect on ${effectiveDate}, more than ${rules.reinstatementDays} days ago.`,
    );
  }
  return {
    kind: 'reinstatement',
    effectiveDate,
    changes: { cancellation: { from: cancellation.recorded, to: null } },
    charges: reversalLines(state.charges.filter((charge) => charge.transactionId === cancellation.transactionId)),
    event: 'policy.reinstated',
    room: { type: 'reinstatement' },
  };
}
