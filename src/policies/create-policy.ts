import { randomUUID } from 'node:crypto';
import type { Gateway, SqlClient } from '../database/database.js';
import type { Principal } from '../auth/principal.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import type { Deadline } from '../limits/deadline.js';
import { conflict } from '../errors/errors.js';
import { withQuotas } from '../limits/quotas.js';
import type { OrganizationRead } from '../organizations/organization.reads.js';
import type { ScheduledCharge } from './premium-schedule.js';
import { priceBody, quotedFields } from './priced-body.js';
import { policyEventData } from './policy-event.js';
import { eventRowFilledIn, EVENT_INSERT, FILLED_IN_DATA, type EventType } from '../outbox/record-event.js';
import { QUOTED_FIELDS, type CreatePolicyInput, type NewPolicyInput } from './policy.input.js';
import { pickColumns } from '../database/read-model.js';
import { CHARGE_COLUMNS, POLICY_COLUMNS, type ChargeRead, type PolicyRead } from './policy.reads.js';
import {
  INSERT_CHARGES,
  INSERT_POLICIES,
  INSERT_STATES,
  INSERT_TRANSACTIONS,
  POLICY_WRITE,
  type ChargeWrite,
  type PolicyWrite,
  type TransactionWrite,
} from './policy.writes.js';
import { changedFieldsOf } from './policy-change.js';
import { fold, stateRow, type PolicyFields as StateFields } from './ledger/state.js';

/** A server-assigned number can lose a race with a client choosing the same one; try again. */
const NUMBER_ATTEMPTS = 5;

/**
 * The whole write in one statement, so one round trip and no explicit transaction (a statement
 * is atomic on its own): the policy (a server-assigned number comes from next_policy_number()
 * unless the client chose one), its first transaction (the issuance, or a renewal), its charges (the premium schedule,
 * owned by that transaction) in one multi-row insert from a JSON array, and its event (spec
 * section 11, the transactional outbox), whose `object.number` is the number assigned. Returns
 * the number. The triggers of the tables (ancestry, quotas, event fan-out) run as for any insert.
 */
const INSERT_POLICY = `with made as (
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
  )
  select number::text as number from made`;

/**
 * Creates a policy for `organizationId`, else the caller's `org`, with its coverage snapshot
 * and premium schedule. `cvc` has been validated and is dropped here.
 */
export interface CreatePolicyScope {
  db: Gateway;
  principal: Principal;
  deadline: Deadline;
  /** Set while an Idempotency-Key is claimed: the create marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

export async function createPolicy(scope: CreatePolicyScope, input: NewPolicyInput): Promise<PolicyRead> {
  const { principal } = scope;
  const { organization, coverage, schedule } = await priceBody(scope.db, principal, {
    organizationId: input.organizationId,
    coverageSlug: input.coverageSlug,
    effectiveDate: input.effectiveDate,
    expirationDate: input.expirationDate,
  });
  const fields: PolicyFields = { ...ownFields(input), ...quotedFields(input, coverage) };

  return withNumberRetries(scope, input.number, async () => {
    const draft = draftPolicy(fields, organization, schedule, principal);
    const insert = async (db: SqlClient) => {
      const created = await insertPolicy(db, draft);
      await scope.idempotency?.recordCreated(db, { type: 'policy', number: created.number });
      return created;
    };
    // With an Idempotency-Key its mark commits with the policy; otherwise the statement is its own transaction.
    return withQuotas(() => (scope.idempotency ? scope.db.transaction(insert) : insert(scope.db)));
  });
}

/** A policy's fields, as the create or a quote gives them: its own and the quoted ones. */
export type PolicyFields = Omit<PolicyWrite, 'id' | 'organizationId' | 'createdBySub' | 'renewalOfId'>;

/** What is not the policy's own: set by the server, or fixed by a quote (a body with quoteId may not send them). */
const NOT_OWN = ['id', 'organizationId', 'createdBySub', 'renewalOfId', 'coverage', ...QUOTED_FIELDS] as const;
type OwnField = Exclude<keyof PolicyFields, (typeof NOT_OWN)[number]>;

/**
 * The policy's own fields: every written property that neither the server nor a quote sets
 * (`number`, `internalID`, and a field a policy gains). A create takes them from its body, as
 * issuing a quote does; a renewal copies its predecessor's. Typed by CreatePolicyInput: `Pick`
 * does not compile while Policy has a property that the create's input lacks, and names it.
 */
export type GivenOwnFields = Pick<CreatePolicyInput, OwnField>;
const OWN_FIELDS = Object.keys(POLICY_WRITE).filter((name) => !(NOT_OWN as readonly string[]).includes(name)) as OwnField[];

/**
 * The own fields' values as the input types them, checked where they meet PolicyFields; a field
 * the input lacks is left to the one error of GivenOwnFields' Pick.
 */
type OwnValues = { [Name in OwnField]: NonNullable<CreatePolicyInput[Name & keyof CreatePolicyInput]> | null };

/** The own fields as given, absent ones null. */
export function ownFields(given: GivenOwnFields): OwnValues {
  return Object.fromEntries(OWN_FIELDS.map((name) => [name, given[name] ?? null])) as OwnValues;
}

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

/** The rows a create writes (ids new each time) and the answer they make; see INSERT_POLICY. */
export interface PolicyDraft {
  policy: PolicyWrite;
  /** The answer, with number 0 when the server assigns it (insertPolicy fills it in). */
  created: PolicyRead;
  values: unknown[];
}

/**
 * The policy, its first transaction (by default its issuance) owning `schedule` (new ids) and
 * its event (by default `policy.created`).
 */
export function draftPolicy(
  fields: PolicyFields,
  organization: OrganizationRead,
  schedule: readonly ScheduledCharge[],
  principal: Principal,
  origin: DraftOrigin = ISSUANCE,
): PolicyDraft {
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
  // Its first state, as the fold makes it (ledger/state.ts): version 1, its own fields from the start.
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
    renewalOf: origin.renewalOf?.number ?? null,
    renewedBy: null,
  };
  const values = [
    JSON.stringify([policy]),
    JSON.stringify([first]),
    JSON.stringify(charges),
    JSON.stringify([state]),
    ...eventRowFilledIn(
      {
        type: origin.event,
        organizationId: organization.id,
        actorSub: principal.sub,
        // The first transaction wrote the whole schedule: the event carries it there, as every step's does.
        ...policyEventData(created, { ...first, charges: created.charges ?? [] }),
      },
      'number',
    ),
  ];
  return { policy, created, values };
}

/** Writes a draft in one statement (policy, its first transaction, charges, event); the answer with its number. */
export async function insertPolicy(db: SqlClient, draft: PolicyDraft): Promise<PolicyRead> {
  const [{ number }] = await db.query<{ number: string }>(INSERT_POLICY, draft.values);
  return { ...draft.created, number: Number(number) };
}

/**
 * Runs `write` (which must undo itself whole when it fails) again when a server-assigned number
 * lost a race with a client choosing the same one; a number the client chose is 409.
 */
export async function withNumberRetries<T>(
  scope: { deadline: Deadline },
  chosen: number | null | undefined,
  write: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    // Past the request's deadline (its 503 has gone), no write starts.
    scope.deadline.assertOpen();
    try {
      return await write();
    } catch (error) {
      if (!isNumberTaken(error)) throw error;
      if (chosen != null) throw conflict(`A policy with number ${chosen} already exists.`);
      if (attempt === NUMBER_ATTEMPTS) throw error;
    }
  }
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

/** A unique violation of the number, as node-postgres reports it (the gateway, database/database.ts). */
function isNumberTaken(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'policy_number_unique';
}
