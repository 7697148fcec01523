import { randomUUID } from 'node:crypto';
import type { Gateway, Transaction } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess } from '../database/sql.js';
import type { Deadline } from '../limits/deadline.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import { invalidState } from '../errors/errors.js';
import { isPolicyNumber } from '../values/identifiers.js';
import { todayUtc } from '../values/calendar-date.js';
import { EVENT_INSERT, eventRow, type EventType } from '../outbox/record-event.js';
import { jsonObject, pickColumns, rfc3339 } from '../database/read-model.js';
import { ORGANIZATION_JSON } from '../organizations/organization.reads.js';
import {
  CHARGE_COLUMNS,
  POLICY_COLUMNS,
  POLICY_SELECT,
  policyNotFound,
  policyRead,
  type ChargeRead,
  type PolicyRead,
} from './policy.reads.js';
import { policyEventData } from './policy-event.js';
import { INSERT_CHARGES, INSERT_STATES, INSERT_TRANSACTIONS, type ChargeWrite, type TransactionWrite } from './policy.writes.js';
import { CHANGEABLE_FIELDS } from './policy-change.js';
import { roomToLeave, stepFits, type LedgerStep } from './ledger-room.js';
import type { TransactionKind } from './ledger/kinds.js';
import type { NewCharge } from './ledger/decision.js';
import {
  apply,
  cancellationRead,
  fieldsOn,
  fold,
  stateRow,
  type PolicyFields,
  type PolicyState,
  type PostedCharge,
  type PostedTransaction,
} from './ledger/state.js';

/**
 * What the transactions after issuance (change, cancellation, reinstatement) share: the policy
 * locked for the length of the transaction (so transactions on one policy run one after the
 * other and each sees the ledger the previous one left), its ledger folded into its state
 * (ledger/state.ts), and the write of one transaction with its charges and its event. Four
 * statements: the lock, the ledger, the write, and the commit (with BEGIN, five round trips);
 * the answer is made from what was read and written.
 */

export interface LedgerScope {
  db: Gateway;
  principal: Principal;
  deadline: Deadline;
  /** Set while an Idempotency-Key is claimed: marked in the transaction's own database transaction. */
  idempotency?: IdempotencyRecorder;
}

export interface LedgerCharge extends PostedCharge {
  transactionId: string;
  sequence: number;
}

/** A `policy_transaction` row as the ledger read gives it. */
interface TransactionRow {
  id: string;
  type: TransactionKind;
  effectiveDate: string;
  changes: Record<string, { from: unknown; to: unknown }>;
  createdAt: string;
}

export interface PolicyLedger {
  /** The policy as reads serve it, with its charges and organization, once the lock is held. */
  policy: PolicyRead & { charges: ChargeRead[] };
  /** Every charge, in sequence order. */
  charges: LedgerCharge[];
  /** The fold of its transactions, oldest first (by seq), over the policy as issued. */
  state: PolicyState;
  /** This database transaction's time (`now()`), as reads show the `createdAt` of what it writes. */
  transactionTime: string;
}

/** The policy by number if accessible, locked until the transaction ends (`for update of p`). */
const LOCK_POLICY = perAccess(
  (access) => `select p.id from policy p join organization o on o.id = p.organization_id
  where p.number = ? and ${access} for update of p`,
);

/** The policy's own fields (its row's, as issued), which the fold starts from. */
const ISSUED_FIELDS = jsonObject(
  Object.fromEntries([...CHANGEABLE_FIELDS, 'coverage' as const].map((field) => [field, POLICY_COLUMNS[field]])),
);

/**
 * Read once the lock is held, in a statement of its own: one that began before the lock was
 * granted would read the ledger as it was before the transaction that held the lock. The policy
 * as reads serve it and its own fields, every charge with its sequence, the transactions, and
 * the time this transaction's rows take (their `created_at` default is `now()`).
 */
const LEDGER = `select ${POLICY_SELECT}, ${ORGANIZATION_JSON} as organization, ${ISSUED_FIELDS} as issued,
    coalesce((select json_agg(${jsonObject({ ...CHARGE_COLUMNS, sequence: 'c.sequence' })} order by c.sequence)
      from charge c where c.policy_id = p.id), '[]') as ledger,
    (select json_agg(json_build_object('id', t.id, 'type', t.type, 'effectiveDate', t.effective_date, 'changes', t.changes,
        'createdAt', ${rfc3339('t.created_at')}) order by t.seq)
      from policy_transaction t where t.policy_id = p.id) as transactions,
    ${rfc3339('now()')} as "transactionTime"
  from policy p join organization o on o.id = p.organization_id where p.id = ?`;

/** A transaction, its charges, the state it leaves (policy_state) and its event: one statement. */
const WRITE_TRANSACTION = `with made as (${INSERT_TRANSACTIONS}), charged as (${INSERT_CHARGES}), stated as (${INSERT_STATES})
  ${EVENT_INSERT} values (?, ?, ?, ?::json, ?, ?)`;

/**
 * Runs `work` in a database transaction holding the policy's row lock, with the ledger as it is
 * once the lock is held. Out of reach (or no such number): 404, as for reads.
 */
export async function withLockedLedger<T>(
  scope: LedgerScope,
  number: number,
  work: (tx: Transaction, ledger: PolicyLedger) => Promise<T>,
): Promise<T> {
  if (!isPolicyNumber(number)) throw policyNotFound();
  scope.deadline.assertOpen();
  return scope.db.transaction(async (tx) => {
    const { sql, params } = accessPredicate('o', scope.principal);
    const [locked] = await tx.query<{ id: string }>(LOCK_POLICY(sql), [number, ...params]);
    if (!locked) throw policyNotFound();
    const [row] = await tx.query<
      Record<string, unknown> & { issued: PolicyFields; ledger: LedgerCharge[]; transactions: TransactionRow[]; transactionTime: string }
    >(LEDGER, [locked.id]);
    const { issued, ledger: charges, transactions, transactionTime, ...read } = row;
    if (!transactions?.length) throw new Error(`policy ${locked.id} has no transactions: its issuance is missing`);
    const policy = { ...policyRead(read), charges: charges.map((charge) => pickColumns(CHARGE_COLUMNS, charge) as ChargeRead) };
    const state = fold(
      { number: policy.number, effectiveDate: policy.effectiveDate, expirationDate: policy.expirationDate, fields: issued },
      postedTransactions(transactions, charges),
    );
    return work(tx, { policy, charges, state, transactionTime });
  });
}

/** The transactions as the fold takes them, each with the charges it wrote (charges are numbered in transaction order). */
function postedTransactions(transactions: readonly TransactionRow[], charges: readonly LedgerCharge[]): PostedTransaction[] {
  const written = new Map<string, LedgerCharge[]>(transactions.map((transaction) => [transaction.id, []]));
  for (const charge of charges) written.get(charge.transactionId)?.push(charge);
  return transactions.map(({ type, ...transaction }) => ({ ...transaction, kind: type, charges: written.get(transaction.id) ?? [] }));
}

// The ceiling lives with the rule (ledger-room.ts); importers of the ledger find it here too.
export { MAX_LEDGER_CHARGES } from './ledger-room.js';

/**
 * Writes the transaction, its charges (numbered after the policy's last) and its event in one
 * statement, and marks the Idempotency-Key. Returns the policy as it now reads, made from what
 * was read under the lock and what was written, as the create makes its answer (nothing is read
 * back): the state with the written transaction applied gives the fields in effect today and
 * the cancellation in force; its charges are the ledger's with the new ones after them.
 */
export async function writeTransaction(
  tx: Transaction,
  scope: LedgerScope,
  ledger: PolicyLedger,
  write: {
    type: TransactionKind;
    effectiveDate: string;
    changes: TransactionWrite['changes'];
    charges: NewCharge[];
    event: EventType;
    /** What the step is to the cap (contract section 14, "Bounded ledgers"), and the cap: POLICY_MAX_CHARGES. */
    room: { step: LedgerStep; maxCharges: number };
  },
): Promise<PolicyRead> {
  const { policy, charges: existing } = ledger;
  const { step, maxCharges } = write.room;
  if (!stepFits(existing.length, write.charges.length, step, maxCharges)) {
    const left = roomToLeave(step, write.charges.length);
    throw invalidState(
      `This ${write.type} would add ${write.charges.length} charges to the ${existing.length} of policy ${policy.number}'s ledger ` +
        `and leave fewer than ${left} of the ${maxCharges} a policy holds free for ` +
        (step.type === 'cancellation' ? 'its reinstatement' : 'a cancellation and its reinstatement') +
        '. Issue a new policy instead.',
    );
  }
  const transaction: TransactionWrite = {
    id: randomUUID(),
    policyId: policy.id,
    type: write.type,
    effectiveDate: write.effectiveDate,
    createdBy: scope.principal.sub,
    changes: write.changes,
  };
  const next = existing.reduce((max, charge) => Math.max(max, charge.sequence), -1) + 1;
  const currency = existing[0]?.currency ?? 'USD';
  const rows = write.charges.map((charge, index): ChargeWrite => ({
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
    kind: write.type,
    effectiveDate: write.effectiveDate,
    changes: write.changes,
    createdAt: ledger.transactionTime,
    charges: rows,
  });
  const read: PolicyRead = {
    ...policy,
    ...fieldsOn(posted, todayUtc()),
    version: posted.version,
    charges: [...policy.charges, ...added],
    cancellation: cancellationRead(posted),
  };
  await tx.query(WRITE_TRANSACTION, [
    JSON.stringify([transaction]),
    JSON.stringify(rows),
    // The state it leaves, stored as it was folded (ledger/state.ts): what reads show from now on.
    JSON.stringify([stateRow(posted, { policyId: policy.id, transactionId: transaction.id })]),
    ...eventRow({
      type: write.event,
      organizationId: policy.organizationId,
      actorSub: scope.principal.sub,
      ...policyEventData(read, { ...transaction, charges: added }),
    }),
  ]);
  await scope.idempotency?.recordCreated(tx, { type: 'policy', number: policy.number });
  return read;
}
