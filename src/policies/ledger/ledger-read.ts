import type { Transaction } from '../../database/database.js';
import { accessPredicate } from '../../auth/access-rule.js';
import type { Principal } from '../../auth/principal.js';
import { perAccess } from '../../database/sql.js';
import { jsonObject, pickColumns, rfc3339 } from '../../database/read-model.js';
import { ORGANIZATION_JSON } from '../../organizations/organization.reads.js';
import { CHARGE_COLUMNS, POLICY_SELECT, policyNotFound, policyRead, type ChargeRead, type PolicyRead } from '../policy.reads.js';
import { changedFieldsOf, type ChangedField } from './policy-change.js';
import type { TransactionKind } from './kinds.js';
import { fold, withPayments, type PolicyFields, type PolicyState, type PostedCharge, type PostedTransaction } from './state.js';

/**
 * The locked read of a policy's ledger (post.ts takes it before deciding): the policy's row
 * locked for the length of the database transaction, so transactions on one policy run one
 * after the other and each sees the ledger the previous one left, then its ledger read and
 * folded into its state (state.ts). Two statements: the lock, then the ledger.
 */

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
  /** The fold of its transactions, oldest first (by seq), over the policy as issued; its payments as storage keeps them (withPayments). */
  state: PolicyState;
  /** This database transaction's time (`now()`), as reads show the `createdAt` of what it writes. */
  transactionTime: string;
}

/** The policy by number if accessible, locked until the transaction ends (`for update of p`). */
const LOCK_POLICY = perAccess(
  (access) => `select p.id from policy p join organization o on o.id = p.organization_id
  where p.number = ? and ${access} for update of p`,
);

/**
 * Read once the lock is held, in a statement of its own: one that began before the lock was
 * granted would read the ledger as it was before the transaction that held the lock. The policy
 * as reads serve it (its row's own columns among them, which the fold starts from), every charge
 * with its sequence, the transactions, and the time this transaction's rows take (their
 * `created_at` default is `now()`).
 */
const LEDGER = `select ${POLICY_SELECT}, ${ORGANIZATION_JSON} as organization,
    coalesce((select json_agg(${jsonObject({ ...CHARGE_COLUMNS, sequence: 'c.sequence' })} order by c.sequence)
      from charge c where c.policy_id = p.id), '[]') as ledger,
    (select json_agg(json_build_object('id', t.id, 'type', t.type, 'effectiveDate', t.effective_date, 'changes', t.changes,
        'createdAt', ${rfc3339('t.created_at')}) order by t.seq)
      from policy_transaction t where t.policy_id = p.id) as transactions,
    ${rfc3339('now()')} as "transactionTime"
  from policy p join organization o on o.id = p.organization_id where p.id = ?`;

/**
 * Locks the policy by number and reads its ledger, in `tx` (the lock lasts until it ends). Out
 * of reach (or no such number): 404, as for reads.
 */
export async function readLockedLedger(tx: Transaction, principal: Principal, number: number): Promise<PolicyLedger> {
  const { sql, params } = accessPredicate('o', principal);
  const [locked] = await tx.query<{ id: string }>(LOCK_POLICY(sql), [number, ...params]);
  if (!locked) throw policyNotFound();
  const [row] = await tx.query<
    Record<string, unknown> & { ledger: LedgerCharge[]; transactions: TransactionRow[]; transactionTime: string }
  >(LEDGER, [locked.id]);
  const { ledger: charges, transactions, transactionTime, ...read } = row;
  // The policy's own fields, as issued: its row's columns, before policyRead lays today's over them.
  const issued = changedFieldsOf(read as Record<ChangedField, unknown>) as PolicyFields;
  if (!transactions?.length) throw new Error(`policy ${locked.id} has no transactions: its issuance is missing`);
  const policy = { ...policyRead(read), charges: charges.map((charge) => pickColumns(CHARGE_COLUMNS, charge) as ChargeRead) };
  const state = withPayments(
    fold(
      { number: policy.number, effectiveDate: policy.effectiveDate, expirationDate: policy.expirationDate, fields: issued },
      postedTransactions(transactions, charges),
    ),
    policy,
  );
  return { policy, charges, state, transactionTime };
}

/** The transactions as the fold takes them, each with the charges it wrote (charges are numbered in transaction order). */
function postedTransactions(transactions: readonly TransactionRow[], charges: readonly LedgerCharge[]): PostedTransaction[] {
  const written = new Map<string, LedgerCharge[]>(transactions.map((transaction) => [transaction.id, []]));
  for (const charge of charges) written.get(charge.transactionId)?.push(charge);
  return transactions.map(({ type, ...transaction }) => ({ ...transaction, kind: type, charges: written.get(transaction.id) ?? [] }));
}
