import type { Principal } from '../../auth/principal.js';
import type { PolicyRules } from '../../config.js';
import type { Gateway } from '../../database/database.js';
import type { IdempotencyRecorder } from '../../idempotency/idempotency.js';
import type { Deadline } from '../../limits/deadline.js';

/** What a write to a policy's ledger runs with: every step, the create and issuing a quote. */
export interface LedgerScope {
  db: Gateway;
  principal: Principal;
  deadline: Deadline;
  /** Contract sections 14 and 19: the steps' rules, and the billing summary's grace that every answer and event shows. */
  rules: PolicyRules;
  /** Set while an Idempotency-Key is claimed: marked in the write's own database transaction (ledger-write.ts). */
  idempotency?: IdempotencyRecorder;
}

/** A request's scope for a ledger write (a resolver's context and the caller). */
export function ledgerScope(
  context: { db: Gateway; deadline: Deadline; idempotency?: IdempotencyRecorder; policyRules: PolicyRules },
  principal: Principal,
): LedgerScope {
  const { db, deadline, idempotency, policyRules } = context;
  return { db, principal, deadline, idempotency, rules: policyRules };
}
