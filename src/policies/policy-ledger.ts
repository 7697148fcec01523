import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess, querySql } from '../database/sql.js';
import { inTransaction } from '../database/transaction.js';
import type { Deadline } from '../limits/deadline.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import { invalidState } from '../errors/errors.js';
import { isPolicyNumber } from '../values/identifiers.js';
import { compareDates } from '../values/calendar-date.js';
import { recordEvent, type EventType } from '../events/record-event.js';
import { findAccessiblePolicy, policyNotFound, type PolicyRead } from './policy.reads.js';
import { policyStatus } from './policy-status.js';
import { INSERT_CHARGES, INSERT_TRANSACTIONS, type ChargeWrite, type TransactionWrite } from './policy.writes.js';
import type { TransactionType } from './policy-transaction.entity.js';

/**
 * What the transactions after issuance (cancellation, reinstatement) share: the policy locked
 * for the length of the transaction (so transactions on one policy run one after the other and
 * each sees the ledger the previous one left), its ledger, and the write of one transaction
 * with its charges and its event.
 */

export interface LedgerScope {
  em: EntityManager;
  principal: Principal;
  deadline: Deadline;
  /** Set while an Idempotency-Key is claimed: marked in the transaction's own database transaction. */
  idempotency?: IdempotencyRecorder;
}

export interface LockedPolicy {
  id: string;
  number: number;
  organizationId: string;
  effectiveDate: string;
  expirationDate: string;
}

export interface LedgerCharge {
  id: string;
  transactionId: string;
  transactionType: TransactionType;
  sequence: number;
  type: string;
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
  policy: LockedPolicy;
  /** Every charge, in sequence order. */
  charges: LedgerCharge[];
  /** The latest transaction. */
  latest: LedgerTransaction;
  /** The latest cancellation or reinstatement when it is a cancellation (one in force, maybe in the future). */
  cancellation: LedgerTransaction | null;
}

/** The policy by number if accessible, locked until the transaction ends (`for update of p`). */
const LOCK_POLICY = perAccess((access) => `select p.id, p.number::text as number, p.organization_id as "organizationId",
    p.effective_date as "effectiveDate", p.expiration_date as "expirationDate"
  from policy p join organization o on o.id = p.organization_id
  where p.number = ? and ${access} for update of p`);

const LEDGER_CHARGES = `select c.id, c.transaction_id as "transactionId", t.type as "transactionType", c.sequence, c.type,
    c.period_start as "periodStart", c.period_end as "periodEnd", c.due_date as "dueDate", c.amount, c.currency
  from charge c join policy_transaction t on t.id = c.transaction_id where c.policy_id = ? order by c.sequence`;

const LEDGER_TRANSACTIONS = `select t.id, t.type, t.effective_date as "effectiveDate", t.changes
  from policy_transaction t where t.policy_id = ? order by t.seq`;

/**
 * Runs `work` in a database transaction holding the policy's row lock, with the ledger as it is
 * once the lock is held. Out of reach (or no such number): 404, as for reads.
 */
export async function withLockedLedger<T>(scope: LedgerScope, number: number, work: (em: EntityManager, ledger: PolicyLedger) => Promise<T>): Promise<T> {
  if (!isPolicyNumber(number)) throw policyNotFound();
  scope.deadline.assertOpen();
  return inTransaction(scope.em, async (em) => {
    const { sql, params } = accessPredicate('o', scope.principal);
    const [row] = await querySql<Omit<LockedPolicy, 'number'> & { number: string }>(em, LOCK_POLICY(sql), [number, ...params]);
    if (!row) throw policyNotFound();
    const policy = { ...row, number: Number(row.number) };
    const charges = await querySql<LedgerCharge>(em, LEDGER_CHARGES, [policy.id]);
    const transactions = await querySql<LedgerTransaction>(em, LEDGER_TRANSACTIONS, [policy.id]);
    const lastChange = transactions.filter((transaction) => transaction.type === 'cancellation' || transaction.type === 'reinstatement').at(-1);
    return work(em, {
      policy,
      charges,
      latest: transactions.at(-1)!,
      cancellation: lastChange?.type === 'cancellation' ? lastChange : null,
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
    throw invalidState(`effectiveDate must lie in the policy's term, from ${policy.effectiveDate} until (not on) ${policy.expirationDate}.`);
  }
  if (compareDates(effectiveDate, latest.effectiveDate) < 0) {
    throw invalidState(`effectiveDate must not be before the policy's latest transaction (${latest.type}, effective ${latest.effectiveDate}).`);
  }
}

/**
 * The most charges one policy's ledger holds. Every stored list has a bound (a five-year
 * schedule is 60 charges; one cancellation and its reinstatement add at most 122), so a read of
 * one policy, a page of a list and a GraphQL query's metered cost stay bounded however often a
 * policy is cancelled and reinstated. A transaction that would pass it is 409 INVALID_STATE.
 */
export const MAX_LEDGER_CHARGES = 1000;

/** A charge a transaction adds, before its ids and sequence. */
export type NewCharge = Omit<ChargeWrite, 'id' | 'policyId' | 'transactionId' | 'sequence' | 'currency' | 'status' | 'reverses'> & { reverses?: string | null };

/**
 * Writes the transaction and its charges (numbered after the policy's last), marks the
 * Idempotency-Key, and records the event with the policy as it now reads. Returns that read.
 */
export async function writeTransaction(
  em: EntityManager,
  scope: LedgerScope,
  ledger: PolicyLedger,
  write: { type: TransactionType; effectiveDate: string; changes: TransactionWrite['changes']; charges: NewCharge[]; event: EventType },
): Promise<PolicyRead> {
  const { policy, charges: existing } = ledger;
  if (existing.length + write.charges.length > MAX_LEDGER_CHARGES) {
    throw invalidState(
      `This ${write.type} would add ${write.charges.length} charges to the ${existing.length} of policy ${policy.number}'s ledger, ` +
        `over the ${MAX_LEDGER_CHARGES} a policy holds. Issue a new policy instead.`,
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
  const rows = write.charges.map(
    (charge, index): ChargeWrite => ({
      id: randomUUID(),
      policyId: policy.id,
      transactionId: transaction.id,
      sequence: next + index,
      currency,
      status: 'scheduled',
      ...charge,
      reverses: charge.reverses ?? null,
    }),
  );
  await querySql(em, `with made as (${INSERT_TRANSACTIONS}) ${INSERT_CHARGES}`, [JSON.stringify([transaction]), JSON.stringify(rows)]);
  await scope.idempotency?.recordCreated(em, { type: 'policy', number: policy.number });
  const read = (await findAccessiblePolicy(em, scope.principal, policy.number))!;
  await recordEvent(em, { type: write.event, organizationId: policy.organizationId, object: policyEventObject(read) });
  return read;
}

/** The event's object: the policy as it reads now, its organization as the read shape names it. */
function policyEventObject({ organization, organizationId: _organizationId, ...policy }: PolicyRead): object {
  return {
    ...policy,
    status: policyStatus(policy),
    cancellation: policy.cancellation ?? null,
    renewalOf: null,
    renewedBy: null,
    organization: { id: organization!.id, name: organization!.name, parentId: organization!.parentId },
  };
}
