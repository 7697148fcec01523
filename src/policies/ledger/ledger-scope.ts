import type { Principal } from '../../auth/principal.js';
import type { Gateway } from '../../database/database.js';
import type { IdempotencyRecorder } from '../../idempotency/idempotency.js';
import type { Deadline } from '../../limits/deadline.js';

/** What a write to a policy's ledger runs with: every step, the create and issuing a quote. */
export interface LedgerScope {
  db: Gateway;
  principal: Principal;
  deadline: Deadline;
  /** Set while an Idempotency-Key is claimed: marked in the write's own database transaction (ledger-write.ts). */
  idempotency?: IdempotencyRecorder;
}
