import type { SqlClient } from '../database/database.js';
import type { Deadline } from '../limits/deadline.js';
import { conflict } from '../errors/errors.js';
import { withQuotas } from '../limits/quotas.js';
import { priceBody, quotedFields } from './priced-body.js';
import { QUOTED_FIELDS, type CreatePolicyInput, type NewPolicyInput } from './policy.input.js';
import type { PolicyRead } from './policy.reads.js';
import { POLICY_WRITE } from './policy.writes.js';
import type { LedgerScope } from './ledger/ledger-scope.js';
import { writeOpening } from './ledger/ledger-write.js';
import { draftPolicy, type NewPolicyFields } from './ledger/opening.js';
import { openingEntry } from './ledger/ledger-entry.js';

/** A server-assigned number can lose a race with a client choosing the same one; try again. */
const NUMBER_ATTEMPTS = 5;

/**
 * Creates a policy for `organizationId`, else the caller's `org`, with its coverage snapshot
 * and premium schedule. `cvc` has been validated and is dropped here.
 */
export async function createPolicy(scope: LedgerScope, input: NewPolicyInput): Promise<PolicyRead> {
  const { principal } = scope;
  const { organization, coverage, schedule } = await priceBody(scope.db, principal, {
    organizationId: input.organizationId,
    coverageSlug: input.coverageSlug,
    effectiveDate: input.effectiveDate,
    expirationDate: input.expirationDate,
  });
  const fields: NewPolicyFields = { ...ownFields(input), ...quotedFields(input, coverage) };

  const created = await withNumberRetries(scope, input.number, async () => {
    const draft = draftPolicy(fields, organization, schedule, scope);
    const insert = (db: SqlClient) => writeOpening(db, scope, draft);
    // With an Idempotency-Key its mark commits with the policy; otherwise the statement is its own transaction.
    return withQuotas(() => (scope.idempotency ? scope.db.transaction(insert) : insert(scope.db)));
  });
  // Committed (ledger-scope.ts, `observe`).
  scope.observe?.(openingEntry('issuance', created));
  return created;
}

/** What is not the policy's own: set by the server, or fixed by a quote (a body with quoteId may not send them). */
const NOT_OWN = ['id', 'organizationId', 'createdBySub', 'renewalOfId', 'coverage', ...QUOTED_FIELDS] as const;
type OwnField = Exclude<keyof NewPolicyFields, (typeof NOT_OWN)[number]>;

/**
 * The policy's own fields: every written property that neither the server nor a quote sets
 * (`number`, `internalID`, and a field a policy gains). A create takes them from its body, as
 * issuing a quote does; a renewal copies its predecessor's. Typed by CreatePolicyInput: `Pick`
 * does not compile while Policy has a property that the create's input lacks, and names it.
 */
export type GivenOwnFields = Pick<CreatePolicyInput, OwnField>;
const OWN_FIELDS = Object.keys(POLICY_WRITE).filter((name) => !(NOT_OWN as readonly string[]).includes(name)) as OwnField[];

/**
 * The own fields' values as the input types them, checked where they meet NewPolicyFields; a field
 * the input lacks is left to the one error of GivenOwnFields' Pick.
 */
type OwnValues = { [Name in OwnField]: NonNullable<CreatePolicyInput[Name & keyof CreatePolicyInput]> | null };

/** The own fields as given, absent ones null. */
export function ownFields(given: GivenOwnFields): OwnValues {
  return Object.fromEntries(OWN_FIELDS.map((name) => [name, given[name] ?? null])) as OwnValues;
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

/** A unique violation of the number, as node-postgres reports it (the gateway, database/database.ts). */
function isNumberTaken(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'policy_number_unique';
}
