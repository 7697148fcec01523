import type { Principal } from '../../auth/principal.js';
import type { PolicyRules } from '../../config.js';
import type { Gateway } from '../../database/database.js';
import type { IdempotencyRecorder } from '../../idempotency/idempotency.js';
import type { Deadline } from '../../limits/deadline.js';
import type { LedgerObserver } from '../../observability/business-metrics.js';
import type { RequestOrigin } from '../../outbox/audit-entry.js';

/** What a write to a policy's ledger runs with: every step, the create and issuing a quote. */
export interface LedgerScope {
  db: Gateway;
  principal: Principal;
  /** The request the write came in (its id, address, User-Agent), for its audit entry; null for the service's own (the billing sweep). */
  origin: RequestOrigin | null;
  deadline: Deadline;
  /** Contract sections 14 and 19: the steps' rules, and the billing summary's grace that every answer and event shows. */
  rules: PolicyRules;
  /** Set while an Idempotency-Key is claimed: marked in the write's own database transaction (ledger-write.ts). */
  idempotency?: IdempotencyRecorder;
  /**
   * Told of each write once it has committed, never of one rolled back (the business metrics):
   * by post.ts for every step, and by the openings' callers (create-policy.ts, issue-quote.ts).
   */
  observe?: LedgerObserver;
}

/** A request's scope for a ledger write (a resolver's context and the caller). */
export function ledgerScope(
  context: {
    db: Gateway;
    origin: RequestOrigin;
    deadline: Deadline;
    idempotency?: IdempotencyRecorder;
    policyRules: PolicyRules;
    ledgerWritten?: LedgerObserver;
  },
  principal: Principal,
): LedgerScope {
  const { db, origin, deadline, idempotency, policyRules, ledgerWritten } = context;
  return { db, principal, origin, deadline, idempotency, rules: policyRules, observe: ledgerWritten };
}
