import { compareDates, daysBetween } from '../../values/calendar-date.js';

/**
 * The money of a cancellation (contract section 14), as a pure function over the ledger: no
 * database, no clock. Amounts are integer cents; "round" is half up on the absolute value, the
 * sign kept; `days(a, b)` counts from `a` inclusive to `b` exclusive.
 */

export const CANCELLATION_REASONS = ['insured_request', 'non_payment', 'underwriting', 'fraud', 'free_look', 'other'] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];
export const CANCELLATION_METHODS = ['flat', 'short_rate', 'pro_rata'] as const;
export type CancellationMethod = (typeof CANCELLATION_METHODS)[number];

/** flat for free_look, short_rate for insured_request, pro_rata otherwise. */
export function cancellationMethod(reason: CancellationReason): CancellationMethod {
  if (reason === 'free_look') return 'flat';
  if (reason === 'insured_request') return 'short_rate';
  return 'pro_rata';
}

/** A schedule period `[periodStart, periodEnd)`. */
export interface Period {
  periodStart: string;
  periodEnd: string;
}

/** The part of a charge the money needs. */
export interface LedgerLine extends Period {
  amount: number;
}

/** A charge a cancellation adds (credit or fee), before it gets its ids. */
export interface CancellationLine extends Period {
  type: 'credit' | 'fee';
  dueDate: string;
  amount: number;
}

export interface CancellationMoney {
  method: CancellationMethod;
  lines: CancellationLine[];
  /** The sum of the credits (not positive). */
  credited: number;
  /** The short-rate fee, else 0. */
  fee: number;
}

/** `amount × numerator ÷ denominator`, rounded half up on the absolute value, sign kept; exact in integers. */
export function roundedShare(amount: number, numerator: number, denominator: number): number {
  const magnitude = Math.floor((2 * Math.abs(amount) * numerator + denominator) / (2 * denominator));
  // No -0: a zero credit is 0.
  return amount < 0 && magnitude !== 0 ? -magnitude : magnitude;
}

/** `net(P)`: the sum of the charges whose period is exactly `P`. */
export function net(ledger: readonly LedgerLine[], period: Period): number {
  return ledger.reduce(
    (sum, line) => (line.periodStart === period.periodStart && line.periodEnd === period.periodEnd ? sum + line.amount : sum),
    0,
  );
}

/**
 * The charges cancelling on `effectiveDate` adds: for every schedule period `[s, e)` with
 * `e > effectiveDate`, a credit of `-round(net(P) × days(max(effectiveDate, s), e) ÷ days(s, e))`
 * (flat: `-net(P)` for every period), over `[max(effectiveDate, s), e)`, due on its start; short rate adds a fee
 * of `round(|credited| × shortRatePercent ÷ 100)` due on `effectiveDate`, over the rest of the
 * term `[effectiveDate, expirationDate)` (a charge's period is never empty). Should that be a
 * schedule period too, no later `net(P)` sees the fee alone: nothing but a reinstatement, which
 * reverses it over the same period, follows a cancellation.
 */
export function cancellationCharges(input: {
  schedule: readonly Period[];
  ledger: readonly LedgerLine[];
  effectiveDate: string;
  expirationDate: string;
  method: CancellationMethod;
  shortRatePercent: number;
}): CancellationMoney {
  const { schedule, ledger, effectiveDate, expirationDate, method, shortRatePercent } = input;
  const lines: CancellationLine[] = [];
  for (const period of schedule) {
    const ended = compareDates(period.periodEnd, effectiveDate) <= 0;
    // Flat credits every period; a period over before the date (only with a free look longer
    // than a period) keeps its own start, so that no credit's period is empty.
    if (ended && method !== 'flat') continue;
    const start = !ended && compareDates(effectiveDate, period.periodStart) > 0 ? effectiveDate : period.periodStart;
    const owed = net(ledger, period);
    const credit =
      method === 'flat'
        ? owed
        : roundedShare(owed, daysBetween(start, period.periodEnd), daysBetween(period.periodStart, period.periodEnd));
    lines.push({ type: 'credit', periodStart: start, periodEnd: period.periodEnd, dueDate: start, amount: credit === 0 ? 0 : -credit });
  }
  const credited = lines.reduce((sum, line) => sum + line.amount, 0);
  const fee = method === 'short_rate' ? roundedShare(Math.abs(credited), shortRatePercent, 100) : 0;
  if (method === 'short_rate') {
    lines.push({ type: 'fee', periodStart: effectiveDate, periodEnd: expirationDate, dueDate: effectiveDate, amount: fee });
  }
  return { method, lines, credited, fee };
}

/** free_look is allowed only up to `freeLookDays` after the policy's effectiveDate. */
export function withinFreeLook(policyEffectiveDate: string, cancellationDate: string, freeLookDays: number): boolean {
  return daysBetween(policyEffectiveDate, cancellationDate) <= freeLookDays;
}

/**
 * Reinstating is possible while the cancellation lies in the future or took effect at most
 * `reinstatementDays` before `today`, unless it was for fraud.
 */
export function canReinstate(cancellation: { effectiveDate: string; reason: string }, today: string, reinstatementDays: number): boolean {
  return cancellation.reason !== 'fraud' && daysBetween(cancellation.effectiveDate, today) <= reinstatementDays;
}

/** A charge to undo, with its id. */
export interface ReversibleLine extends LedgerLine {
  id: string;
  dueDate: string;
}

/** One reversal per charge: the opposite amount over the same period, naming the charge it undoes. */
export function reversalLines(
  charges: readonly ReversibleLine[],
): (LedgerLine & { type: 'reversal'; dueDate: string; reverses: string })[] {
  return charges.map(({ id, periodStart, periodEnd, dueDate, amount }) => ({
    type: 'reversal',
    periodStart,
    periodEnd,
    dueDate,
    amount: amount === 0 ? 0 : -amount,
    reverses: id,
  }));
}
