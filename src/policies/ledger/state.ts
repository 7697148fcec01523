import { compareDates } from '../../values/calendar-date.js';
import { net, type CancellationMethod, type CancellationReason, type Period } from './cancellation-charges.js';
import type { ChangedField } from './policy-change.js';
import { policyStatus, type PolicyStatus } from '../policy-status.js';
import type { CancellationRead, PolicyRead } from '../policy.reads.js';
import type { PolicyStateWrite } from '../policy.writes.js';
import { duesOf, oldestUnpaidDueDate } from './billing.js';
import type { PaymentKind, TransactionKind } from './kinds.js';

/**
 * A policy's state as the fold of its transactions (contract section 14): the one rendering of
 * the fields in effect by date, the cancellation in force, the schedule periods and `net(P)`.
 * Pure: no database, no clock. Writes fold the ledger they lock and decide on this state
 * (decide-*.ts); the row storage keeps is `stateRow` of it.
 */

/** A charge as its `charge` row holds it. */
export interface PostedCharge {
  id: string;
  type: string;
  periodStart: string;
  periodEnd: string;
  dueDate: string;
  amount: number;
  currency: string;
  reverses: string | null;
}

/** A transaction as its `policy_transaction` row holds it, with the charges it wrote in sequence order. */
export interface PostedTransaction {
  id: string;
  kind: TransactionKind;
  effectiveDate: string;
  changes: Record<string, { from: unknown; to: unknown }>;
  /** RFC 3339, as reads show it. */
  createdAt: string;
  charges: readonly PostedCharge[];
}

/** The fields a change may set (CHANGEABLE_FIELDS) and the coverage that travels with the plan. */
export type PolicyFields = Pick<PolicyRead, ChangedField>;

/** What the fold starts from: the policy as issued (its own row: its number, its term, its fields). */
export interface PolicyBasis {
  number: number;
  effectiveDate: string;
  /** Exclusive. */
  expirationDate: string;
  fields: PolicyFields;
}

/** The fields from `validFrom` on (null: from the start, the policy's own). */
export interface FieldsEntry {
  validFrom: string | null;
  fields: PolicyFields;
}

/** The cancellation in force as reads show it, with its transaction. */
export interface CancellationInForce extends CancellationRead {
  transactionId: string;
  /** What its transaction recorded as `changes.cancellation.to`: a reinstatement names it as its `from`, as written. */
  recorded: unknown;
}

export interface PolicyState {
  policy: Omit<PolicyBasis, 'fields'>;
  /** 0 before the first transaction, 1 after it, +1 per transaction. */
  version: number;
  /** Oldest first; `validFrom` never decreases. */
  timeline: readonly FieldsEntry[];
  /** The latest cancellation or reinstatement when it is a cancellation (maybe dated in the future). */
  cancellation: CancellationInForce | null;
  /** Section 5's periods: those of the premiums the first transaction (issuance or renewal) wrote. */
  schedule: readonly Period[];
  /** Every charge, in sequence order, with the transaction that wrote it. */
  charges: readonly (PostedCharge & { transactionId: string })[];
  /** The latest transaction; null before the first. */
  latest: { id: string; kind: TransactionKind; effectiveDate: string } | null;
  /** Payments minus refunds (contract section 19). */
  paid: number;
}

/** A payment or a refund as the state takes it (contract section 19): it counts in the version and in `paid`. */
export interface PostedPayment {
  kind: PaymentKind;
  amount: number;
}

/** The state before any transaction: the policy's own fields hold from the start. */
export function initialState(basis: PolicyBasis): PolicyState {
  const { fields, ...policy } = basis;
  return {
    policy,
    version: 0,
    timeline: [{ validFrom: null, fields }],
    cancellation: null,
    schedule: [],
    charges: [],
    latest: null,
    paid: 0,
  };
}

/**
 * The state after one more transaction. Transactions come oldest first and their effective
 * dates never decrease (contract section 14); the first is an issuance or a renewal, and only
 * the first is.
 */
export function apply(state: PolicyState, transaction: PostedTransaction): PolicyState {
  const first = state.version === 0;
  const opening = transaction.kind === 'issuance' || transaction.kind === 'renewal';
  if (first !== opening) {
    throw new Error(`policy ${state.policy.number}: a ${transaction.kind} cannot be transaction ${state.version + 1} of its ledger`);
  }
  const { id, kind, effectiveDate } = transaction;
  const next: PolicyState = {
    ...state,
    version: state.version + 1,
    charges: [...state.charges, ...transaction.charges.map((charge) => ({ ...charge, transactionId: id }))],
    latest: { id, kind, effectiveDate },
  };
  switch (kind) {
    case 'issuance':
    case 'renewal':
      // Its changes (a renewal's link and plan) name what differs from the predecessor: the
      // policy's own fields already hold them.
      return {
        ...next,
        schedule: transaction.charges
          .filter((charge) => charge.type === 'premium')
          .map(({ periodStart, periodEnd }) => ({ periodStart, periodEnd })),
      };
    case 'change':
      return {
        ...next,
        timeline: [...state.timeline, { validFrom: effectiveDate, fields: withChanges(latestFields(state), transaction) }],
      };
    case 'cancellation':
      return { ...next, cancellation: cancellationOf(transaction) };
    case 'reinstatement':
      return { ...next, cancellation: null };
  }
}

/**
 * The state after a payment or a refund: one version more, `paid` up or down; nothing else moves
 * (contract section 19: not a transaction, no date rule, no charge).
 */
export function applyPayment(state: PolicyState, payment: PostedPayment): PolicyState {
  if (state.version === 0) throw new Error(`policy ${state.policy.number}: a ${payment.kind} cannot come before its first transaction`);
  return { ...state, version: state.version + 1, paid: state.paid + (payment.kind === 'payment' ? payment.amount : -payment.amount) };
}

/**
 * Where the ledger's money stands as storage kept it (policy_state's latest `version` and
 * `paid`): payments are not folded again on each write, as formancehq/ledger reads an account's
 * volumes rather than summing its postings. The fold of the transactions gives every other part
 * of the state; the stored version counts the payments between them too.
 */
export function withPayments(state: PolicyState, stored: { version: number; paid: number }): PolicyState {
  if (stored.version < state.version) {
    throw new Error(`policy ${state.policy.number}: stored version ${stored.version} is behind its ${state.version} transactions`);
  }
  return { ...state, version: stored.version, paid: stored.paid };
}

/** The state after every transaction, oldest first. */
export function fold(basis: PolicyBasis, transactions: readonly PostedTransaction[]): PolicyState {
  return transactions.reduce(apply, initialState(basis));
}

/** Each field a change names takes its `to`. */
function withChanges(fields: PolicyFields, { changes }: PostedTransaction): PolicyFields {
  const values: Record<string, unknown> = { ...fields };
  for (const [field, { to }] of Object.entries(changes)) values[field] = to;
  return values as PolicyFields;
}

/**
 * The cancellation a transaction records, as reads show it: its date, the reason and method
 * it recorded, the sums of its own credits and fees, and when it was written.
 */
function cancellationOf(transaction: PostedTransaction): CancellationInForce {
  const recorded = transaction.changes.cancellation?.to as { reason: CancellationReason; method: CancellationMethod };
  const sum = (type: string) => transaction.charges.reduce((total, charge) => (charge.type === type ? total + charge.amount : total), 0);
  return {
    effectiveDate: transaction.effectiveDate,
    reason: recorded.reason,
    method: recorded.method,
    credited: sum('credit'),
    fee: sum('fee'),
    createdAt: transaction.createdAt,
    transactionId: transaction.id,
    recorded,
  };
}

/** The fields in effect on `date`: those of the latest entry valid on it (the policy's own before any change). */
export function fieldsOn(state: PolicyState, date: string): PolicyFields {
  let fields = state.timeline[0].fields;
  for (const entry of state.timeline) {
    if (entry.validFrom !== null && compareDates(entry.validFrom, date) > 0) break;
    fields = entry.fields;
  }
  return fields;
}

/** The fields from the latest transaction on: every change applied, even one dated after today. */
export function latestFields(state: PolicyState): PolicyFields {
  return state.timeline[state.timeline.length - 1].fields;
}

/** The cancellation in force as reads show it (also while it lies in the future), or null. */
export function cancellationRead(state: PolicyState): CancellationRead | null {
  if (!state.cancellation) return null;
  const { effectiveDate, reason, method, credited, fee, createdAt } = state.cancellation;
  return { effectiveDate, reason, method, credited, fee, createdAt };
}

/** `net(P)`: the sum of the charges whose period is exactly `P`. */
export function netOf(state: PolicyState, period: Period): number {
  return net(state.charges, period);
}

/** Where the policy stands on `today` (contract section 14, "Status"). */
export function statusOn(state: PolicyState, today: string): PolicyStatus {
  return policyStatus({ ...state.policy, cancellation: state.cancellation }, today);
}

/**
 * The projection row storage keeps for the state after its latest transaction, payment or
 * refund (`policy_state`, PolicyStateWrite): the fields in effect from `validFrom` on
 * ('-infinity' while they are the policy's own: after the first transaction, and after a payment
 * before any change; else the latest transaction's effectiveDate, on or after every change's),
 * the cancellation in force after it, and what billing reads (contract section 19): the dues per
 * day, `paid`, and the oldest unpaid due date.
 */
export function stateRow(
  state: PolicyState,
  row: { policyId: string } & ({ transactionId: string; paymentId?: never } | { paymentId: string; transactionId?: never }),
): PolicyStateWrite {
  const { latest } = state;
  if (!latest) throw new Error(`policy ${state.policy.number} has no transaction: no state to store`);
  const cancellation = cancellationRead(state);
  const ownFields = state.version === 1 || (row.paymentId !== undefined && state.timeline.length === 1);
  const dues = duesOf(state.charges);
  return {
    policyId: row.policyId,
    version: state.version,
    transactionId: row.transactionId ?? null,
    paymentId: row.paymentId ?? null,
    validFrom: ownFields ? '-infinity' : latest.effectiveDate,
    fields: latestFields(state),
    cancellation,
    cancelledFrom: cancellation?.effectiveDate ?? null,
    dues,
    paid: state.paid,
    unpaidFrom: oldestUnpaidDueDate({ dues, paid: state.paid }),
  };
}
