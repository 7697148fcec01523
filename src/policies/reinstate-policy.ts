import { decideReinstatement } from './ledger/decide-reinstatement.js';
import type { LedgerScope } from './ledger/ledger-scope.js';
import { post } from './ledger/post.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * Reinstates a policy (contract section 14, "Reinstate"): a `reinstatement` transaction with a
 * reversal of each charge of the cancellation in force, and the `policy.reinstated` event,
 * posted under the policy's row lock (ledger/post.ts). The rules: ledger/decide-reinstatement.ts.
 */
export function reinstatePolicy(scope: LedgerScope, number: number): Promise<PolicyRead> {
  return post(scope, number, { command: () => ({}), decide: decideReinstatement });
}
