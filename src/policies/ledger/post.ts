import type { Transaction } from '../../database/database.js';
import { withQuotas } from '../../limits/quotas.js';
import { todayUtc } from '../../values/calendar-date.js';
import { isPolicyNumber } from '../../values/identifiers.js';
import { policyNotFound, type PolicyRead } from '../policy.reads.js';
import type { DecideContext, Decision } from './decision.js';
import { readLockedLedger, type PolicyLedger } from './ledger-read.js';
import type { LedgerScope } from './ledger-scope.js';
import { writeOpening, writePayment, writeTransaction } from './ledger-write.js';
import { openingEntry, paymentEntry, transactionEntry } from './ledger-entry.js';
import type { PaymentDecision } from './decide-payment.js';
import type { PolicyDraft } from './opening.js';
import type { PolicyState } from './state.js';

/**
 * Every step on an existing policy (change, cancellation, reinstatement, renewal, and the
 * payments and refunds of contract section 19) is posted here,
 * as formancehq/ledger's `forgeLog` runs each command: in one database transaction, the policy's
 * row locked and its ledger folded (ledger-read.ts), the step's pure decide run over that state,
 * then the one writer (ledger-write.ts) writes the transaction, its charges, the state it leaves,
 * its event and the Idempotency-Key's mark. Transactions on one policy so run one after the
 * other, each deciding on what the previous one left: of racing cancellations, or renewals,
 * exactly one is written. With BEGIN and COMMIT, five round trips. Once it has committed, the
 * scope's `observe` is told what was written (the business metrics); a rollback tells it nothing.
 */

/** What a step decides: a transaction on the locked policy, (a renewal) its successor's opening, or a payment or a refund. */
export type Posting = Decision | { successor: PolicyDraft } | PaymentDecision;

export interface Step<Command> {
  /**
   * What the decide takes, made once the lock is held: the body as it came, or (a renewal) the
   * successor priced from the policy as locked, which needs the database (the catalog).
   */
  command: (tx: Transaction, ledger: PolicyLedger) => Command | Promise<Command>;
  /** Pure (decide-*.ts): throws the step's 400 or 409, or returns what to write. */
  decide: (state: PolicyState, command: Command, context: DecideContext) => Posting;
}

/**
 * Posts a step on policy `number`; answers the policy as it now reads (a renewal: its
 * successor). Out of reach (or no such number): 404, as for reads.
 */
export async function post<Command>(scope: LedgerScope, number: number, step: Step<Command>): Promise<PolicyRead> {
  if (!isPolicyNumber(number)) throw policyNotFound();
  scope.deadline.assertOpen();
  // A successor counts against its tree's quota, whose triggers run at the commit (deferred): so
  // the whole transaction runs within withQuotas. Nothing else posted here is counted.
  const { read, entry } = await withQuotas(() =>
    scope.db.transaction(async (tx) => {
      const ledger = await readLockedLedger(tx, scope.principal, number);
      const command = await step.command(tx, ledger);
      const posting = step.decide(ledger.state, command, { today: todayUtc(), rules: scope.rules });
      if ('successor' in posting) {
        const opened = await writeOpening(tx, scope, posting.successor);
        // A successor is a renewal's (decide-renewal.ts).
        return { read: opened, entry: openingEntry('renewal', opened) };
      }
      if ('payment' in posting) return { read: await writePayment(tx, scope, ledger, posting), entry: paymentEntry(ledger.state, posting) };
      const written = await writeTransaction(tx, scope, ledger, posting, scope.rules.maxCharges);
      return { read: written, entry: transactionEntry(ledger.state, posting) };
    }),
  );
  scope.observe?.(entry);
  return read;
}
