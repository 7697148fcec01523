import type { PolicyRules } from '../../config.js';
import { invalidState } from '../../errors/errors.js';
import type { EventType } from '../../outbox/record-event.js';
import { compareDates } from '../../values/calendar-date.js';
import type { LedgerStep } from './ledger-room.js';
import type { ChargeWrite, TransactionWrite } from '../policy.writes.js';
import type { TransactionKind } from './kinds.js';
import type { PolicyState } from './state.js';

/**
 * What every kind's `decide(state, command, { today, rules })` shares: its context and what it
 * decides. A decide is pure: it throws the 400 or 409 the step answers, or returns the
 * transaction to write, which `apply` then folds like any other.
 */

export interface DecideContext {
  /** Today in UTC, against which the rules judge (expiry, reinstatement, the renewal window). */
  today: string;
  rules: PolicyRules;
}

/** A charge a transaction adds, before its ids and sequence. */
export type NewCharge = Omit<ChargeWrite, 'id' | 'policyId' | 'transactionId' | 'sequence' | 'currency' | 'status' | 'reverses'> & {
  reverses?: string | null;
};

export interface Decision {
  kind: TransactionKind;
  effectiveDate: string;
  changes: TransactionWrite['changes'];
  charges: NewCharge[];
  event: EventType;
  /** What the step is to the cap (contract section 14, "Bounded ledgers"). */
  room: LedgerStep;
  /** A cancellation the service recorded for non-payment (decide-lapse.ts): the business metrics count it as a lapse. */
  lapse?: boolean;
}

/**
 * A new transaction's date must lie in the term and not before the latest transaction's
 * (contract section 14), else 409 INVALID_STATE.
 */
export function assertTransactionDate({ policy, latest }: PolicyState, effectiveDate: string): void {
  if (compareDates(effectiveDate, policy.effectiveDate) < 0 || compareDates(effectiveDate, policy.expirationDate) >= 0) {
    throw invalidState(
      `effectiveDate must lie in the policy's term, from ${policy.effectiveDate} until (not on) ${policy.expirationDate}.`,
    );
  }
  if (latest && compareDates(effectiveDate, latest.effectiveDate) < 0) {
    throw invalidState(
      `effectiveDate must not be before the policy's latest transaction (${latest.kind}, effective ${latest.effectiveDate}).`,
    );
  }
}

/** Once expired (today on or after its expirationDate), a policy is neither changed nor cancelled. */
export function assertNotExpired({ policy }: PolicyState, today: string): void {
  if (today >= policy.expirationDate) throw invalidState(`Policy ${policy.number} expired on ${policy.expirationDate}.`);
}
