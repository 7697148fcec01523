import { randomUUID } from 'node:crypto';
import type { Gateway, SqlClient } from '../database/database.js';
import type { Principal } from '../auth/principal.js';
import { pickColumns, rfc3339 } from '../database/read-model.js';
import { insertStatement, type WriteColumns, type WriteOf } from '../database/write-model.js';
import { EVENT_INSERT, eventRowFilledIn, FILLED_IN_DATA } from '../outbox/record-event.js';
import { AUDIT_INSERT, auditRow, type RequestOrigin } from '../outbox/audit-entry.js';
import { inKeyOrder } from '../values/key-order.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import type { Deadline } from '../limits/deadline.js';
import { priceBody, quotedFields } from '../policies/priced-body.js';
import type { Quote } from './quote.entity.js';
import type { CreateQuoteInput } from './quote.input.js';
import { QUOTE_COLUMNS, QUOTE_KEY_ORDER, type QuoteRead } from './quote.reads.js';

/**
 * The quote's write model (database/write-model.ts), as the policy's writes are: each property
 * a quote create writes, its column and type, checked against the entity. `validDays` is not a
 * property: it becomes `expires_at`, the database's `now()` (the creation time) plus the
 * validity, the same clock that later judges `expired`.
 */
type NotWritten = 'organization' | 'status' | 'policyNumber' | 'expiresAt' | 'policy' | 'issuedAt' | 'createdAt';
export type QuoteWrite = WriteOf<Quote, NotWritten>;

export const QUOTE_WRITE = {
  id: { column: 'id', type: 'uuid' },
  organizationId: { column: 'organization_id', type: 'uuid' },
  ownerFirstname: { column: 'owner_firstname', type: 'text' },
  ownerLastname: { column: 'owner_lastname', type: 'text' },
  ownerDOB: { column: 'owner_dob', type: 'date' },
  petName: { column: 'pet_name', type: 'text' },
  petDOB: { column: 'pet_dob', type: 'date' },
  effectiveDate: { column: 'effective_date', type: 'date' },
  expirationDate: { column: 'expiration_date', type: 'date' },
  coverageSlug: { column: 'coverage_slug', type: 'text' },
  coverage: { column: 'coverage', type: 'jsonb' },
  charges: { column: 'charges', type: 'jsonb' },
  totalPremium: { column: 'total_premium', type: 'integer' },
  currency: { column: 'currency', type: 'text' },
  createdBySub: { column: 'created_by_sub', type: 'text' },
  validDays: { column: 'expires_at', type: 'integer', value: (given) => `now() + make_interval(days => ${given})` },
} as const satisfies WriteColumns<Quote, NotWritten, 'validDays'>;

/**
 * The quote and its `quote.created` event in one statement (atomic on its own, as the policy
 * create is), and its audit entry; the event's object gets `expiresAt` from the row written.
 */
const INSERT_QUOTE = `with made as (
    ${insertStatement('quote', QUOTE_WRITE)}
    returning ${rfc3339('expires_at')} as "expiresAt"
  ), recorded as (
    ${EVENT_INSERT} select ?, ?, ?, ${FILLED_IN_DATA('made."expiresAt"')}, ?, ? from made
  ), audited as (
    ${AUDIT_INSERT}
  )
  select "expiresAt" from made`;

export interface CreateQuoteScope {
  db: Gateway;
  principal: Principal;
  /** The request, for the audit entry. */
  origin: RequestOrigin | null;
  deadline: Deadline;
  /** QUOTE_VALID_DAYS: how long the quote can be issued. */
  validDays: number;
  /** Set while an Idempotency-Key is claimed: the create marks it in its own transaction. */
  idempotency?: IdempotencyRecorder;
}

/**
 * Quotes a policy body for `organizationId`, else the caller's `org`: the plan as it is now and
 * the premium schedule a policy made from the same body gets (section 5), stored with the quote.
 */
export async function createQuote(scope: CreateQuoteScope, input: CreateQuoteInput): Promise<QuoteRead> {
  const { principal } = scope;
  const { organization, coverage, schedule: charges } = await priceBody(scope.db, principal, input);
  const quote: QuoteWrite = {
    id: randomUUID(),
    organizationId: organization.id,
    ...quotedFields(input, coverage),
    charges,
    totalPremium: charges.reduce((sum, charge) => sum + charge.amount, 0),
    currency: coverage.currency,
    createdBySub: principal.sub,
  };
  // The answer, from what is written; the event carries the same object (its expiresAt filled in by the statement).
  const created = (expiresAt: string | null): QuoteRead =>
    pickColumns(QUOTE_COLUMNS, { ...quote, status: 'open', expiresAt, policyNumber: null }) as QuoteRead;
  const values = [
    JSON.stringify([{ ...quote, validDays: scope.validDays }]),
    ...eventRowFilledIn(
      {
        type: 'quote.created',
        organizationId: quote.organizationId,
        actorSub: principal.sub,
        object: inKeyOrder(QUOTE_KEY_ORDER, created(null)) as object,
      },
      'expiresAt',
    ),
    ...auditRow({
      action: 'quote.create',
      actor: scope,
      organizationId: quote.organizationId,
      targets: [{ type: 'quote', id: quote.id }],
    }),
  ];
  // Past the request's deadline (its 503 has gone), no write starts.
  scope.deadline.assertOpen();
  const insert = async (db: SqlClient) => {
    const [{ expiresAt }] = await db.query<{ expiresAt: string }>(INSERT_QUOTE, values);
    await scope.idempotency?.recordCreated(db, { type: 'quote', id: quote.id });
    return created(expiresAt);
  };
  // With an Idempotency-Key its mark commits with the quote; otherwise the statement is its own transaction.
  return scope.idempotency ? scope.db.transaction(insert) : insert(scope.db);
}
