import { decideChange } from './ledger/decide-change.js';
import type { LedgerScope } from './ledger/ledger-scope.js';
import { post } from './ledger/post.js';
import type { ChangePolicyInput } from './policy-lifecycle.input.js';
import type { PolicyRead } from './policy.reads.js';
import { currentPlan } from './priced-body.js';

/**
 * Changes a policy mid-term (contract section 14, "Change"): one `change` transaction, with the
 * `policy.changed` event, posted under the policy's row lock (ledger/post.ts). Reads show it
 * from its effectiveDate on. The rules and the order of refusals after 404: ledger/decide-change.ts.
 */
export async function changePolicy(scope: LedgerScope, number: number, input: ChangePolicyInput): Promise<PolicyRead> {
  // The catalog is read before the lock is taken (it does not depend on the policy); an unknown
  // slug is refused only once the policy is known to be in reach, with the body's other errors.
  const plan = input.coverageSlug != null ? await currentPlan(scope.db, input.coverageSlug) : null;
  const command = { ...input, plan };
  return post(scope, number, { command: () => command, decide: decideChange });
}
