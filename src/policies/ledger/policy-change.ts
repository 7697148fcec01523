import { compareDates } from '../../values/calendar-date.js';
import { net, type LedgerLine, type Period } from './cancellation-charges.js';
import type { POLICY_WRITE } from '../policy.writes.js';

/**
 * The pure parts of a mid-term change (contract section 14, "Change"): which fields a change
 * may set, which of them a body changes, and the money of a plan change (the fields in effect
 * after a run of changes are the fold's, ledger/state.ts). No database, no clock.
 */

type PolicyWriteField = keyof typeof POLICY_WRITE;

/**
 * The fields a change body may set (besides its effectiveDate). Each is also a field of
 * ChangePolicyInput (its crossFieldErrors reads them there) and a field of its stored state
 * (policy_state's `fields`: changedFieldsOf), which reads and the benchmark's baseline show.
 */
export const CHANGEABLE_FIELDS = [
  'petName',
  'petDOB',
  'ownerFirstname',
  'ownerLastname',
  'ownerDOB',
  'coverageSlug',
] as const satisfies readonly PolicyWriteField[];
export type ChangeableField = (typeof CHANGEABLE_FIELDS)[number];

/**
 * The policy fields a change transaction's `changes` may name: the body's, and `coverage`
 * (the new plan's snapshot, which travels with `coverageSlug`). Reads overlay exactly these.
 */
export type ChangedField = ChangeableField | 'coverage';
const CHANGED_FIELDS: readonly ChangedField[] = [...CHANGEABLE_FIELDS, 'coverage'];

/**
 * The policy's written fields that no change sets: fixed when the policy is issued (or, for its
 * successor, renewed). With CHANGEABLE_FIELDS and `coverage` they are every field of POLICY_WRITE,
 * each in one list: a new field must be put in one of them, or this file does not compile
 * (issue 36: a field left out of CHANGEABLE_FIELDS was silently frozen at issue).
 */
export const FIXED_AT_ISSUE = [
  'id',
  'number',
  'internalID',
  'organizationId',
  'effectiveDate',
  'expirationDate',
  'createdBySub',
  'renewalOfId',
] as const satisfies readonly PolicyWriteField[];

type Unsorted = Exclude<PolicyWriteField, ChangedField | (typeof FIXED_AT_ISSUE)[number]>;
type InBoth = Extract<ChangedField, (typeof FIXED_AT_ISSUE)[number]>;
/** A field in neither list, or in both, fails `tsc` with the field and what to do: `Type '"petBreed: add it to …"' does not satisfy the constraint 'true'`. */
export type EveryPolicyFieldIsChangeableOrFixedAtIssue = Assert<
  [Unsorted] extends [never]
    ? true
    : `${Unsorted}: add it to CHANGEABLE_FIELDS in policy-change.ts if a change may set it mid-term (then to ChangePolicyInput too), else to FIXED_AT_ISSUE`
>;
export type NoPolicyFieldIsBothChangeableAndFixedAtIssue = Assert<
  [InBoth] extends [never] ? true : `${InBoth}: in both CHANGEABLE_FIELDS and FIXED_AT_ISSUE (policy-change.ts); keep it in one`
>;
type Assert<T extends true> = T;

export type FieldChanges = Partial<Record<ChangedField, { from: unknown; to: unknown }>>;

/** The fields a change may set (and `coverage`) of a policy: what a stored state holds (policy_state's `fields`). */
export function changedFieldsOf(policy: Record<ChangedField, unknown>): Record<ChangedField, unknown> {
  return Object.fromEntries(CHANGED_FIELDS.map((field) => [field, policy[field]])) as Record<ChangedField, unknown>;
}

/**
 * The `{ from, to }` of each requested field that differs from the value in effect (`current`);
 * a field sent with the value it already has is left out. Coverage compares by slug: asking for
 * the plan the policy has is no change, even if the catalog price has moved since.
 */
export function fieldChanges(
  current: Record<ChangedField, unknown>,
  requested: Partial<Record<ChangeableField, string>> & { coverage?: object },
): FieldChanges {
  const changes: FieldChanges = {};
  for (const field of CHANGEABLE_FIELDS) {
    const to = requested[field];
    if (to === undefined || to === current[field]) continue;
    changes[field] = { from: current[field], to };
  }
  if (changes.coverageSlug) changes.coverage = { from: current.coverage, to: requested.coverage };
  return changes;
}

/** A billing date: the start of one of the schedule's periods. */
export function isBillingDate(schedule: readonly Period[], date: string): boolean {
  return schedule.some((period) => period.periodStart === date);
}

/** A charge a plan change adds, before it gets its ids. */
export interface PlanChangeLine extends Period {
  type: 'credit' | 'premium';
  dueDate: string;
  amount: number;
}

/**
 * The charges of a plan change on `effectiveDate` (a billing date): for every schedule period
 * `P` starting on or after it, a `credit` of `-net(P)` (so nothing of the old plan's price is
 * left in `P`, whatever earlier transactions added to it) and a `premium` at the new plan's
 * price for `P`, both over `P` and due on its start. `newSchedule` is section 5's schedule of
 * the term at the new plan's price (premium-schedule.ts): its periods are the schedule's.
 * Afterwards `net(P)` is the new price for every such period.
 */
export function planChangeCharges(input: {
  newSchedule: readonly (Period & { amount: number })[];
  ledger: readonly LedgerLine[];
  effectiveDate: string;
}): PlanChangeLine[] {
  const lines: PlanChangeLine[] = [];
  for (const period of input.newSchedule) {
    if (compareDates(period.periodStart, input.effectiveDate) < 0) continue;
    const { periodStart, periodEnd } = period;
    const owed = net(input.ledger, period);
    lines.push({ type: 'credit', periodStart, periodEnd, dueDate: periodStart, amount: owed === 0 ? 0 : -owed });
    lines.push({ type: 'premium', periodStart, periodEnd, dueDate: periodStart, amount: period.amount });
  }
  return lines;
}
