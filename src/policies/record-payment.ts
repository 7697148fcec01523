import { conflict } from '../errors/errors.js';
import { decidePayment, type PaymentCommand } from './ledger/decide-payment.js';
import type { PaymentKind } from './ledger/kinds.js';
import type { LedgerScope } from './ledger/ledger-scope.js';
import { post } from './ledger/post.js';
import type { PolicyRead } from './policy.reads.js';

/**
 * Records a payment or a refund (contract section 19): its row, the state it leaves (version +1,
 * `paid` moved) and `policy.payment_recorded` / `policy.refund_recorded`, posted under the
 * policy's row lock (ledger/post.ts) like a transaction, so a refund is judged against the
 * credit balance the previous write left. The rules: ledger/decide-payment.ts.
 */
export async function recordPayment(
  scope: LedgerScope,
  number: number,
  kind: PaymentKind,
  input: { amount: number; reference: string; date?: string | null },
): Promise<PolicyRead> {
  const command: PaymentCommand = { kind, amount: input.amount, reference: input.reference, date: input.date ?? null };
  try {
    return await post(scope, number, { command: () => command, decide: decidePayment });
  } catch (error) {
    // The policy's lock serializes its payments, so a reference taken is one already committed.
    if (isReferenceTaken(error)) {
      throw conflict(`Policy ${number} already has a payment or refund with this reference: a provider's id is recorded once.`);
    }
    throw error;
  }
}

/** A unique violation of the reference, as node-postgres reports it. */
function isReferenceTaken(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'policy_payment_reference_unique';
}
