import { randomUUID } from 'node:crypto';
import type { Gateway, Transaction } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess } from '../database/sql.js';
import type { Deadline } from '../limits/deadline.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import { invalidState } from '../errors/errors.js';
import { isPolicyNumber } from '../values/identifiers.js';
import { compareDates } from '../values/calendar-date.js';
import { EVENT_INSERT, eventRow, type EventType } from '../outbox/record-event.js';
import { jsonObject, pickColumns, rfc3339 } from '../database/read-model.js';
import { ORGANIZATION_JSON } from '../organizations/organization.reads.js';
import {
  CHARGE_COLUMNS,
  POLICY_SELECT,
  policyNotFound,
  policyRead,
  type CancellationRead,
  type ChargeRead,
  type PolicyRead,
} from './policy.reads.js';
import { policyEventData } from './policy-event.js';
import {
  INSERT_CHARGES,
  INSERT_STATES,
  INSERT_TRANSACTIONS,
  type ChargeWrite,
  type PolicyStateWrite,
  type TransactionWrite,
} from './policy.writes.js';
import type { TransactionType } from './policy-transaction.entity.js';
import type { ChargeType } from './charge-types.js';
import { roomToLeave, stepFits, type LedgerStep } from './ledger-room.js';

/**
 * What the transactions after issuance (change, cancellation, reinstatement) share: the policy locked
 * for the length of the transaction (so transactions on one policy run one after the other and
 * each sees the ledger the previous one left), its ledger, and the write of one transaction
 * with its charges and its event. Four statements: the lock, the ledger, the write, and the
 * commit (with BEGIN, five round trips); the answer is made from what was read and written.
 */

export interface LedgerScope {
  db: Gateway;
  principal: Principal;
  deadline: Deadline;
  /** Set while an Idempotency-Key is claimed: marked in the transaction's own database transaction. */
  idempotency?: IdempotencyRecorder;
}

export interface LedgerCharge {
  id: string;
  transactionId: string;
  transactionType: TransactionType;
  sequence: number;
  type: ChargeType;
  periodStart: string;
  periodEnd: string;
  dueDate: string;
  amount: number;
  currency: string;
}

export interface LedgerTransaction {
  id: string;
  type: TransactionType;
  effectiveDate: string;
  changes: Record<string, { from: unknown; to: unknown }>;
}

export interface PolicyLedger {
  /** The policy as reads serve it, with its charges and organization, once the lock is held. */
  policy: PolicyRead & { charges: ChargeRead[] };
  /** Every charge, in sequence order, with its transaction's type. */
  charges: LedgerCharge[];
  /** Every transaction, oldest first (by seq). */
  transactions: LedgerTransaction[];
  /** The latest transaction. */
  latest: LedgerTransaction;
  /** The latest cancellation or reinstatement when it is a cancellation (one in force, maybe in the future). */
  cancellation: LedgerTransaction | null;
  /** This database transaction's time (`now()`), as reads show the `createdAt` of what it writes. */
  transactionTime: string;
  /** The fields of the latest stored state (policy_state): in effect from its date on, a future one included. */
  latestFields: Record<string, unknown>;
}

/** The policy by number if accessible, locked until the transaction ends (`for update of p`). */
const LOCK_POLICY = perAccess(
  (access) => `select p.id from policy p join organization o on o.id = p.organization_id
  where p.number = ? and ${access} for update of p`,
);

/**
 * Read once the lock is held, in a statement of its own: one that began before the lock was
 * granted would read the ledger as it was before the transaction that held the lock. The policy
 * as reads serve it, every charge with its transaction's type and sequence, the transactions,
 * and the time this transaction's rows take (their `created_at` default is `now()`).
 */
const LEDGER = `select ${POLICY_SELECT}, ${ORGANIZATION_JSON} as organization,
    (select s.fields from policy_state s where s.policy_id = p.id order by s.version desc limit 1) as "latestFields",
    coalesce((select json_agg(${jsonObject({ ...CHARGE_COLUMNS, sequence: 'c.sequence', transactionType: 't.type' })} order by c.sequence)
      from charge c join policy_transaction t on t.id = c.transaction_id where c.policy_id = p.id), '[]') as ledger,
    (select json_agg(json_build_object('id', t.id, 'type', t.type, 'effectiveDate', t.effective_date, 'changes', t.changes) order by t.seq)
      from policy_transaction t where t.policy_id = p.id) as transactions,
    ${rfc3339('now()')} as "transactionTime"
  from policy p join organization o on o.id = p.organization_id where p.id = ?`;

/** A transaction, its charges, the state it leaves and its event: one statement. */
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
      Record<string, unknown> & {
        ledger: LedgerCharge[];
        transactions: LedgerTransaction[];
        transactionTime: string;
        latestFields: Record<string, unknown>;
      }
    >(LEDGER, [locked.id]);
    const { ledger: charges, transactions, transactionTime, latestFields, ...read } = row;
    const latest = transactions.at(-1);
    if (!latest) throw new Error(`policy ${locked.id} has no transactions: its issuance is missing`);
    const lastChange = transactions
      .filter((transaction) => transaction.type === 'cancellation' || transaction.type === 'reinstatement')
      .at(-1);
    return work(tx, {
      policy: { ...policyRead(read), charges: charges.map((charge) => pickColumns(CHARGE_COLUMNS, charge) as ChargeRead) },
      charges,
      transactions,
      latest,
      cancellation: lastChange?.type === 'cancellation' ? lastChange : null,
      transactionTime,
      latestFields,
    });
  });
}

/**
 * A new transaction's date must lie in the term and not before the latest transaction's
 * (contract section 14), else 409 INVALID_STATE.
 */
export function assertTransactionDate(ledger: PolicyLedger, effectiveDate: string): void {
  const { policy, latest } = ledger;
  if (compareDates(effectiveDate, policy.effectiveDate) < 0 || compareDates(effectiveDate, policy.expirationDate) >= 0) {
    throw invalidState(
      `effectiveDate must lie in the policy's term, from ${policy.effectiveDate} until (not on) ${policy.expirationDate}.`,
    );
  }
  if (compareDates(effectiveDate, latest.effectiveDate) < 0) {
    throw invalidState(
      `effectiveDate must not be before the policy's latest transaction (${latest.type}, effective ${latest.effectiveDate}).`,
    );
  }
}

/**
 * The schedule periods of section 5: those of the premiums the policy's first transaction wrote,
 * in order (later transactions charge over the same periods). That transaction is an `issuance`,
 * or a `renewal` for a successor: counting issuance premiums only, a successor had no schedule,
 * so its cancellation credited nothing and no plan change found a billing date.
 */
export function schedulePeriods({ charges }: Pick<PolicyLedger, 'charges'>): LedgerCharge[] {
  return charges.filter(
    (charge) => (charge.transactionType === 'issuance' || charge.transactionType === 'renewal') && charge.type === 'premium',
  );
}

// The ceiling lives with the rule (ledger-room.ts); importers of the ledger find it here too.
export { MAX_LEDGER_CHARGES } from './ledger-room.js';

/** A charge a transaction adds, before its ids and sequence. */
export type NewCharge = Omit<ChargeWrite, 'id' | 'policyId' | 'transactionId' | 'sequence' | 'currency' | 'status' | 'reverses'> & {
  reverses?: string | null;
};

/**
 * Writes the transaction, its charges (numbered after the policy's last) and its event in one
 * statement, and marks the Idempotency-Key. Returns the policy as it now reads, made from what
 * was read under the lock and what was written, as the create makes its answer (nothing is read
 * back): its charges with the new ones after them, and the cancellation in force, `cancellation`
 * (the caller's: what this transaction leaves in force).
 */
export async function writeTransaction(
  tx: Transaction,
  scope: LedgerScope,
  ledger: PolicyLedger,
  write: {
    type: TransactionType;
    effectiveDate: string;
    changes: TransactionWrite['changes'];
    charges: NewCharge[];
    event: EventType;
    cancellation: CancellationRead | null;
    /** Fields the answer shows otherwise than the ledger's policy (a change in effect today). */
    shows?: Partial<PolicyRead>;
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
  // The state it leaves: the fields in effect from its date on (a change's over the latest
  // state's; dates never decrease, so those are the fields on its date), and the cancellation.
  const state: PolicyStateWrite = {
    policyId: policy.id,
    version: policy.version + 1,
    transactionId: transaction.id,
    validFrom: write.effectiveDate,
    fields:
      write.type === 'change'
        ? { ...ledger.latestFields, ...Object.fromEntries(Object.entries(write.changes).map(([field, { to }]) => [field, to])) }
        : ledger.latestFields,
    cancellation: write.cancellation,
    cancelledFrom: write.cancellation?.effectiveDate ?? null,
  };
  const read: PolicyRead = {
    ...policy,
    ...write.shows,
    version: state.version,
    charges: [...policy.charges, ...added],
    cancellation: write.cancellation,
  };
  await tx.query(WRITE_TRANSACTION, [
    JSON.stringify([transaction]),
    JSON.stringify(rows),
    JSON.stringify([state]),
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
