import type { SqlClient } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess } from '../database/sql.js';
import { rfc3339, selectList, type ReadColumns, type ReadOf } from '../database/read-model.js';
import { notFound } from '../errors/errors.js';
import { isUuid } from '../values/identifiers.js';
import type { Quote } from './quote.entity.js';
import { keyOrderOf, type KeyOrder } from '../values/key-order.js';

/** The quote's reads (see organization.reads.ts for why plain rows). */

type HiddenQuote = 'organization' | 'coverageSlug' | 'policy' | 'issuedAt' | 'createdBySub' | 'createdAt';

/**
 * `status` as of the statement's time: issued once a policy was made from it, else expired once
 * `expires_at` has passed, else open. Computed here, not stored, so no job has to expire rows.
 */
export const QUOTE_STATUS = `case when q.policy_id is not null then 'issued' when q.expires_at <= now() then 'expired' else 'open' end`;

/** A quote as reads serve it, over the row alias `q`. The policy number (a bigint) arrives as text, converted by quoteRead. */
export const QUOTE_COLUMNS = {
  id: 'q.id',
  organizationId: 'q.organization_id',
  ownerFirstname: 'q.owner_firstname',
  ownerLastname: 'q.owner_lastname',
  ownerDOB: 'q.owner_dob',
  petName: 'q.pet_name',
  petDOB: 'q.pet_dob',
  effectiveDate: 'q.effective_date',
  expirationDate: 'q.expiration_date',
  coverage: 'q.coverage',
  charges: 'q.charges',
  totalPremium: 'q.total_premium',
  currency: 'q.currency',
  status: QUOTE_STATUS,
  expiresAt: rfc3339('q.expires_at'),
  policyNumber: '(select p.number::text from policy p where p.id = q.policy_id)',
} as const satisfies ReadColumns<Quote, HiddenQuote>;

export type QuoteRead = ReadOf<Quote, HiddenQuote>;

/**
 * The REST quote answer (the create's and the read's, contract section 14) as a GraphQL
 * fragment: src/rest/operations.ts spreads it into both routes' documents, and the event's
 * object has its keys in its order (QUOTE_KEY_ORDER, contract section 18).
 */
export const QUOTE_ANSWER = /* GraphQL */ `
  fragment QuoteAnswer on Quote {
    id organizationId ownerFirstname ownerLastname ownerDOB petName petDOB effectiveDate expirationDate
    coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency }
    charges { type periodStart periodEnd dueDate amount currency status }
    totalPremium currency status expiresAt policyNumber
  }
`;

/** The REST quote answer's keys, in its order. */
export const QUOTE_KEY_ORDER: KeyOrder = keyOrderOf(QUOTE_ANSWER);

export const QUOTE_SELECT = selectList(QUOTE_COLUMNS);

/** The access-checked read of one quote by id: its organization decides, as for a policy. */
export const QUOTE_BY_ID = perAccess(
  (access) => `select ${QUOTE_SELECT} from quote q join organization o on o.id = q.organization_id where q.id = ? and ${access}`,
);

/** A row selected with QUOTE_SELECT: only the bigint needs converting. */
export function quoteRead(row: Record<string, unknown>): QuoteRead {
  return { ...(row as unknown as QuoteRead), policyNumber: row.policyNumber == null ? null : Number(row.policyNumber) };
}

export const quoteNotFound = () => notFound('Quote not found.');

/** The quote with this id if the principal may access its organization; one SQL statement. */
export async function findAccessibleQuote(db: SqlClient, principal: Principal, id: string): Promise<QuoteRead | null> {
  if (!isUuid(id)) return null;
  const { sql, params } = accessPredicate('o', principal);
  const [row] = await db.query(QUOTE_BY_ID(sql), [id.toLowerCase(), ...params]);
  return row ? quoteRead(row) : null;
}
