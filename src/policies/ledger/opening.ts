import { randomUUID } from 'node:crypto';
import { pickColumns } from '../../database/read-model.js';
import type { OrganizationRead } from '../../organizations/organization.reads.js';
import { eventRowFilledIn, type EventType } from '../../outbox/record-event.js';
import { policyEventData } from '../policy-event.js';
import { changedFieldsOf } from './policy-change.js';
import { CHARGE_COLUMNS, POLICY_COLUMNS, type ChargeRead, type PolicyRead } from '../policy.reads.js';
import type { ChargeWrite, PolicyStateWrite, PolicyWrite, TransactionWrite } from '../policy.writes.js';
import type { ScheduledCharge } from './premium-schedule.js';
import { duesOf } from './billing.js';
import type { LedgerScope } from './ledger-scope.js';
import { fold, stateRow, type PolicyFields as StateFields } from './state.js';

/**
 * A policy's opening: its row and its first transaction (an issuance, or a renewal's), owning its
 * premium schedule, with the state it leaves and its event, as ledger-write.ts writes them in one
 * statement (writeOpening). A create, issuing a quote and a renewal's successor are drafted here.
 */

/** A new policy's fields, as the create or a quote gives them: its own and the quoted ones. */
export type NewPolicyFields = Omit<PolicyWrite, 'id' | 'organizationId' | 'createdBySub' | 'renewalOfId'>;

/**
 * How a draft comes to be: a create (an `issuance` and `policy.created`), or a renewal's
 * successor (a `renewal` transaction, `policy.renewed`, and the policy it renews).
 */
export interface DraftOrigin {
  transaction: { type: 'issuance' | 'renewal'; changes: TransactionWrite['changes'] };
  event: EventType;
  renewalOf: { id: string; number: number } | null;
}

const ISSUANCE: DraftOrigin = { transaction: { type: 'issuance', changes: {} }, event: 'policy.created', renewalOf: null };

/** The rows an opening writes (ids new each time) and the answer they make. */
export interface PolicyDraft {
  policy: PolicyWrite;
  transaction: TransactionWrite;
  charges: ChargeWrite[];
  state: PolicyStateWrite;
  /** The event's values, its `object.number` filled in by the database (eventRowFilledIn). */
  event: ReturnType<typeof eventRowFilledIn>;
  /** The answer, with number 0 when the server assigns it (writeOpening fills it in). */
  created: PolicyRead;
}

/**
 * The policy, its first transaction (by default its issuance) owning `schedule` (new ids) and
 * its event (by default `policy.created`), written by `writer` (its caller, and the rules its
 * answer's billing summary follows).
 */
export function draftPolicy(
  fields: NewPolicyFields,
  organization: OrganizationRead,
  schedule: readonly ScheduledCharge[],
  writer: Pick<LedgerScope, 'principal' | 'rules'>,
  origin: DraftOrigin = ISSUANCE,
): PolicyDraft {
  const { principal } = writer;
  const policy: PolicyWrite = {
    id: randomUUID(),
    organizationId: organization.id,
    createdBySub: principal.sub,
    ...fields,
    renewalOfId: origin.renewalOf?.id ?? null,
  };
  const first: TransactionWrite = {
    id: randomUUID(),
    policyId: policy.id,
    type: origin.transaction.type,
    effectiveDate: policy.effectiveDate,
    createdBy: principal.sub,
    changes: origin.transaction.changes,
  };
  // Field by field: a quote's stored charge may carry keys of its own.
  const charges = schedule.map(({ type, periodStart, periodEnd, dueDate, amount, currency, status }, sequence): ChargeWrite => ({
    id: randomUUID(),
    policyId: policy.id,
    transactionId: first.id,
    sequence,
    type,
    periodStart,
    periodEnd,
    dueDate,
    amount,
    currency,
    status,
    reverses: null,
  }));
  // Its first state, as the fold makes it (state.ts): version 1, its own fields from the start.
  const issued = fold(
    {
      number: fields.number ?? 0,
      effectiveDate: policy.effectiveDate,
      expirationDate: policy.expirationDate,
      fields: changedFieldsOf(policy) as StateFields,
    },
    [{ id: first.id, kind: first.type, effectiveDate: first.effectiveDate, changes: first.changes, createdAt: '', charges }],
  );
  const state = stateRow(issued, { policyId: policy.id, transactionId: first.id });
  // The number is the database's when the client chose none; the view gets it after the insert.
  const created = {
    ...createdPolicyRead({ ...policy, number: fields.number ?? 0 }, organization, charges),
    version: state.version,
    dues: duesOf(charges),
    paid: 0,
    renewalOf: origin.renewalOf?.number ?? null,
    renewedBy: null,
  };
  const event = eventRowFilledIn(
    {
      type: origin.event,
      organizationId: organization.id,
      actorSub: principal.sub,
      // The first transaction wrote the whole schedule: the event carries it there, as every step's does.
      ...policyEventData(created, { ...first, charges: created.charges ?? [] }, writer.rules.billingGraceDays),
    },
    'number',
  );
  return { policy, transaction: first, charges, state, event, created };
}

/** The policy just inserted, as reads serve it, from the rows written (nothing is read back). */
function createdPolicyRead(
  policy: Omit<PolicyWrite, 'number'> & { number: number },
  organization: OrganizationRead,
  charges: ChargeWrite[],
): PolicyRead {
  return {
    ...(pickColumns(POLICY_COLUMNS, { ...policy, organizationId: organization.id }) as PolicyRead),
    number: policy.number,
    organization,
    charges: charges.map((charge) => pickColumns(CHARGE_COLUMNS, charge) as ChargeRead),
  };
}
