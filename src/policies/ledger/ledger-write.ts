import { randomUUID } from 'node:crypto';
import type { SqlClient, Transaction } from '../../database/database.js';
import { insertStatement } from '../../database/write-model.js';
import { pickColumns } from '../../database/read-model.js';
import { invalidState } from '../../errors/errors.js';
import { EVENT_INSERT, eventRow, FILLED_IN_DATA } from '../../outbox/record-event.js';
import { AUDIT_INSERT, auditRow, type AuditAction, type AuditTarget } from '../../outbox/audit-entry.js';
import { todayUtc } from '../../values/calendar-date.js';
import { roomToLeave, stepFits } from './ledger-room.js';
import { policyEventData } from '../policy-event.js';
import { CHARGE_COLUMNS, type ChargeRead, type PolicyRead } from '../policy.reads.js';
import {
  CHARGE_WRITE,
  PAYMENT_WRITE,
  POLICY_WRITE,
  STATE_WRITE,
  TRANSACTION_WRITE,
  type ChargeWrite,
  type PaymentWrite,
  type TransactionWrite,
} from '../policy.writes.js';
import type { Decision } from './decision.js';
import type { PolicyLedger } from './ledger-read.js';
import type { LedgerScope } from './ledger-scope.js';
import type { PolicyDraft } from './opening.js';
import { apply, applyPayment, cancellationRead, fieldsOn, stateRow } from './state.js';
import type { PaymentDecision } from './decide-payment.js';

/**
 * The ledger's one writer: nothing else inserts a transaction, a charge, a payment or a state
 * row (test/unit/one-ledger-writer.test.ts). Three statements, each the whole write in one round
 * trip: a policy's opening (its row and first transaction), a transaction appended to a locked
 * ledger, and a payment or a refund (contract section 19) appended to one. Each writes the transaction, its charges, the state it leaves (`policy_state`, as the
 * fold makes it: state.ts) and its event (the transactional outbox), and then the
 * Idempotency-Key's mark, in the caller's database transaction. Each statement appends the
 * write's audit entry too (contract section 21, outbox/audit-entry.ts), as its last CTE. The
 * answer is made from what was read and written; nothing is read back.
 */

/** Each takes one parameter: its rows as a JSON array. */
const INSERT_POLICIES = insertStatement('policy', POLICY_WRITE);
const INSERT_TRANSACTIONS = insertStatement('policy_transaction', TRANSACTION_WRITE);
const INSERT_CHARGES = insertStatement('charge', CHARGE_WRITE);
const INSERT_STATES = insertStatement('policy_state', STATE_WRITE);
const INSERT_PAYMENTS = insertStatement('policy_payment', PAYMENT_WRITE);

/**
 * A policy's opening, with no explicit transaction needed (a statement is atomic on its own):
 * the policy (a server-assigned number comes from next_policy_number() unless the client chose
 * one), its first transaction (the issuance, or a renewal), its charges (the premium schedule,
 * owned by that transaction) in one multi-row insert from a JSON array, its state, and its event
 * (spec section 11), whose `object.number` is the number assigned. Returns the number. The
 * triggers of the tables (ancestry, quotas, event fan-out) run as for any insert.
 */
const WRITE_OPENING = `with made as (
    ${INSERT_POLICIES}
    returning id, number
  ), issued as (
    ${INSERT_TRANSACTIONS}
  ), charges as (
    ${INSERT_CHARGES}
  ), stated as (
    ${INSERT_STATES}
  ), recorded as (
    ${EVENT_INSERT} select ?, ?, ?, ${FILLED_IN_DATA('made.number')}, ?, ? from made
  ), audited as (
    ${AUDIT_INSERT}
  )
  select number::text as number from made`;

/** A transaction appended to a locked ledger, its charges, the state it leaves and its event: one statement. */
const WRITE_TRANSACTION = `with made as (${INSERT_TRANSACTIONS}), charged as (${INSERT_CHARGES}), stated as (${INSERT_STATES}),
  recorded as (${EVENT_INSERT} values (?, ?, ?, ?::json, ?, ?))
  ${AUDIT_INSERT}`;

/** A payment or a refund, the state it leaves and its event: one statement (the payment first: the state names it). */
const WRITE_PAYMENT = `with made as (${INSERT_PAYMENTS}), stated as (${INSERT_STATES}),
  recorded as (${EVENT_INSERT} values (?, ?, ?, ?::json, ?, ?))
  ${AUDIT_INSERT}`;

/** What each kind of transaction is in the audit log. */
const AUDIT_ACTION_OF = {
  issuance: 'policy.create',
  change: 'policy.change',
  cancellation: 'policy.cancel',
  reinstatement: 'policy.reinstate',
  renewal: 'policy.renew',
} as const satisfies Record<TransactionWrite['type'], AuditAction>;

/**
 * Writes a drafted opening (opening.ts) and marks the Idempotency-Key; the answer with its
 * number. Its audit entry (`policy.create`, a renewal's `policy.renew`) names the new policy,
 * the policy renewed, and `also` (issuing a quote: the quote).
 */
export async function writeOpening(
  db: SqlClient,
  scope: LedgerScope,
  draft: PolicyDraft,
  also: readonly AuditTarget[] = [],
): Promise<PolicyRead> {
  const { policy, transaction } = draft;
  const [{ number }] = await db.query<{ number: string }>(WRITE_OPENING, [
    JSON.stringify([policy]),
    JSON.stringify([transaction]),
    JSON.stringify(draft.charges),
    JSON.stringify([draft.state]),
    ...draft.event,
    ...auditRow({
      action: AUDIT_ACTION_OF[transaction.type],
      actor: scope,
      organizationId: policy.organizationId,
      targets: [
        { type: 'policy', id: policy.id },
        ...(policy.renewalOfId ? [{ type: 'policy' as const, id: policy.renewalOfId }] : []),
        ...also,
      ],
      // A create's is null; a renewal's are its transaction's.
      changes: transaction.type === 'issuance' ? null : transaction.changes,
    }),
  ]);
  return marked(db, scope, { ...draft.created, number: Number(number) });
}

/**
 * Appends a decided transaction to a ledger read under its lock (ledger-read.ts): its charges
 * numbered after the policy's last, unless they would leave too little room (contract section
 * 14, "Bounded ledgers": `maxCharges` is POLICY_MAX_CHARGES). Returns the policy as it now
 * reads: the state with the transaction applied gives the fields in effect today and the
 * cancellation in force; its charges are the ledger's with the new ones after them.
 */
export async function writeTransaction(
  tx: Transaction,
  scope: LedgerScope,
  ledger: PolicyLedger,
  decision: Decision,
  maxCharges: number,
): Promise<PolicyRead> {
  const { policy, charges: existing } = ledger;
  const { room: step } = decision;
  if (!stepFits(existing.length, decision.charges.length, step, maxCharges)) {
    const left = roomToLeave(step, decision.charges.length);
    throw invalidState(
      `This ${decision.kind} would add ${decision.charges.length} charges to the ${existing.length} of policy ${policy.number}'s ledger ` +
        `and leave fewer than ${left} of the ${maxCharges} a policy holds free for ` +
        (step.type === 'cancellation' ? 'its reinstatement' : 'a cancellation and its reinstatement') +
        '. Issue a new policy instead.',
    );
  }
  const transaction: TransactionWrite = {
    id: randomUUID(),
    policyId: policy.id,
    type: decision.kind,
    effectiveDate: decision.effectiveDate,
    createdBy: scope.principal.sub,
    changes: decision.changes,
  };
  const next = existing.reduce((max, charge) => Math.max(max, charge.sequence), -1) + 1;
  const currency = existing[0]?.currency ?? 'USD';
  const rows = decision.charges.map((charge, index): ChargeWrite => ({
    id: randomUUID(),
    policyId: policy.id,
    transactionId: transaction.id,
    sequence: next + index,
    currency,
    status: 'scheduled',
    ...charge,
    reverses: charge.reverses ?? null,
  }));
  const added = rows.map((row) => pickColumns(CHARGE_COLUMNS, row) as ChargeRead);
  const posted = apply(ledger.state, {
    id: transaction.id,
    kind: decision.kind,
    effectiveDate: decision.effectiveDate,
    changes: decision.changes,
    createdAt: ledger.transactionTime,
    charges: rows,
  });
  // The state it leaves, stored as it was folded (state.ts): what reads show from now on.
  const state = stateRow(posted, { policyId: policy.id, transactionId: transaction.id });
  const read: PolicyRead = {
    ...policy,
    ...fieldsOn(posted, todayUtc()),
    version: posted.version,
    charges: [...policy.charges, ...added],
    cancellation: cancellationRead(posted),
    dues: [...state.dues],
    paid: posted.paid,
  };
  await tx.query(WRITE_TRANSACTION, [
    JSON.stringify([transaction]),
    JSON.stringify(rows),
    JSON.stringify([state]),
    ...eventRow({
      type: decision.event,
      organizationId: policy.organizationId,
      actorSub: scope.principal.sub,
      ...policyEventData(read, { ...transaction, charges: added }, scope.rules.billingGraceDays),
    }),
    ...auditRow({
      action: AUDIT_ACTION_OF[decision.kind],
      actor: scope,
      organizationId: policy.organizationId,
      targets: [
        { type: 'policy', id: policy.id },
        { type: 'transaction', id: transaction.id },
      ],
      changes: decision.changes,
    }),
  ]);
  return marked(tx, scope, read);
}

/**
 * Appends a decided payment or refund (decide-payment.ts) to a ledger read under its lock: the
 * payment's row, the state it leaves (version +1, `paid` moved, contract section 19) and its
 * event, whose `transaction` is the payment as a step (`changes.paid`, no charges). Returns the
 * policy as it now reads.
 */
export async function writePayment(
  tx: Transaction,
  scope: LedgerScope,
  ledger: PolicyLedger,
  decision: PaymentDecision,
): Promise<PolicyRead> {
  const { policy } = ledger;
  const { kind, amount, reference, date } = decision.payment;
  const row: PaymentWrite = { id: randomUUID(), policyId: policy.id, type: kind, amount, reference, date, createdBy: scope.principal.sub };
  const posted = applyPayment(ledger.state, { kind, amount });
  const read: PolicyRead = { ...policy, version: posted.version, paid: posted.paid };
  await tx.query(WRITE_PAYMENT, [
    JSON.stringify([row]),
    JSON.stringify([stateRow(posted, { policyId: policy.id, paymentId: row.id })]),
    ...eventRow({
      type: decision.event,
      organizationId: policy.organizationId,
      actorSub: scope.principal.sub,
      ...policyEventData(
        read,
        { id: row.id, type: kind, effectiveDate: date, changes: { paid: { from: ledger.state.paid, to: posted.paid } }, charges: [] },
        scope.rules.billingGraceDays,
      ),
    }),
    ...auditRow({
      action: kind === 'payment' ? 'payment.create' : 'refund.create',
      actor: scope,
      organizationId: policy.organizationId,
      targets: [
        { type: 'policy', id: policy.id },
        { type: kind, id: row.id },
      ],
      changes: { paid: { from: ledger.state.paid, to: posted.paid } },
    }),
  ]);
  return marked(tx, scope, read);
}

/** The Idempotency-Key's mark, for every kind: it commits with the write, or neither does. */
async function marked(db: SqlClient, scope: LedgerScope, read: PolicyRead): Promise<PolicyRead> {
  await scope.idempotency?.recordCreated(db, { type: 'policy', number: read.number });
  return read;
}
