import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal.js';
import { pickColumns, type ReadOf } from '../database/read-model.js';
import { querySql } from '../database/sql.js';
import { inTransaction } from '../database/transaction.js';
import { EVENT_INSERT, eventRow } from '../events/record-event.js';
import { rfc3339 } from '../events/event.reads.js';
import type { IdempotencyRecorder } from '../idempotency/idempotency.js';
import type { Deadline } from '../limits/deadline.js';
import { priceBody } from '../policies/priced-body.js';
import type { Quote } from './quote.entity.js';
import type { CreateQuoteInput } from './quote.input.js';
import { QUOTE_COLUMNS, type QuoteRead } from './quote.reads.js';

/**
 * The write column map: each property a quote create writes, and its column. The row is typed
 * from the entity (`QuoteWrite`), so a property added to Quote is a compile error here until it
 * is written or listed as not written; and values travel as one JSON object keyed by column
 * (`jsonb_populate_record`), so none can land in another's place.
 */
type NotWritten = 'organization' | 'status' | 'policyNumber' | 'expiresAt' | 'policy' | 'issuedAt' | 'createdAt';
export type QuoteWrite = ReadOf<Quote, NotWritten>;

export const QUOTE_WRITE_COLUMNS = {
  id: 'id',
  organizationId: 'organization_id',
  ownerFirstname: 'owner_firstname',
  ownerLastname: 'owner_lastname',
  ownerDOB: 'owner_dob',
  petName: 'pet_name',
  petDOB: 'pet_dob',
  effectiveDate: 'effective_date',
  expirationDate: 'expiration_date',
  coverageSlug: 'coverage_slug',
  coverage: 'coverage',
  charges: 'charges',
  totalPremium: 'total_premium',
  currency: 'currency',
  createdBySub: 'created_by_sub',
} as const satisfies Record<keyof QuoteWrite, string>;

const WRITTEN = Object.values(QUOTE_WRITE_COLUMNS);

/** The row as `jsonb_populate_record` reads it: the write map's columns as keys. */
function quoteRow(quote: QuoteWrite): string {
  return JSON.stringify(Object.fromEntries(Object.entries(QUOTE_WRITE_COLUMNS).map(([property, column]) => [column, quote[property as keyof QuoteWrite]])));
}

/**
 * The quote and its `quote.created` event in one statement (atomic on its own, as the policy
 * create is). `expires_at` is the database's `now()` (the creation time) plus the validity, the
 * same clock that later judges `expired`; the event's object gets it from the row written.
 */
const INSERT_QUOTE = `with made as (
    insert into quote (${WRITTEN.join(', ')}, expires_at)
    select ${WRITTEN.map((column) => `r.${column}`).join(', ')}, now() + make_interval(days => ?)
    from jsonb_populate_record(null::quote, ?::jsonb) r
    returning ${rfc3339('expires_at')} as "expiresAt"
  ), recorded as (
    ${EVENT_INSERT} select ?, ?, ?, jsonb_set(?::jsonb, '{object,expiresAt}', to_jsonb(made."expiresAt")), ? from made
  )
  select "expiresAt" from made`;

export interface CreateQuoteScope {
  em: EntityManager;
  principal: Principal;
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
  const { organization, coverage, schedule: charges } = await priceBody(scope.em, principal, input);
  const quote: QuoteWrite = {
    id: randomUUID(),
    organizationId: organization.id,
    ownerFirstname: input.ownerFirstname,
    ownerLastname: input.ownerLastname,
    ownerDOB: input.ownerDOB ?? null,
    petName: input.petName,
    petDOB: input.petDOB ?? null,
    effectiveDate: input.effectiveDate,
    expirationDate: input.expirationDate,
    coverageSlug: coverage.slug,
    coverage,
    charges,
    totalPremium: charges.reduce((sum, charge) => sum + charge.amount, 0),
    currency: coverage.currency,
    createdBySub: principal.sub,
  };
  // The answer, from what is written; the event carries the same object (its expiresAt filled in by the statement).
  const created = (expiresAt: string | null): QuoteRead =>
    pickColumns(QUOTE_COLUMNS, { ...quote, status: 'open', expiresAt, policyNumber: null }) as QuoteRead;
  const values = [
    scope.validDays,
    quoteRow(quote),
    ...eventRow({ type: 'quote.created', organizationId: quote.organizationId, object: created(null) }),
  ];
  // Past the request's deadline (its 503 has gone), no write starts.
  scope.deadline.assertOpen();
  const insert = async (em: EntityManager) => {
    const [{ expiresAt }] = await querySql<{ expiresAt: string }>(em, INSERT_QUOTE, values);
    await scope.idempotency?.recordCreated(em, { type: 'quote', id: quote.id });
    return created(expiresAt);
  };
  // With an Idempotency-Key its mark commits with the quote; otherwise the statement is its own transaction.
  return scope.idempotency ? inTransaction(scope.em, insert) : insert(scope.em);
}
