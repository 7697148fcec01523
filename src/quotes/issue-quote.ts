import type { Transaction } from '../database/database.js';
import { accessPredicate } from '../auth/access-rule.js';
import type { Principal } from '../auth/principal.js';
import { perAccess } from '../database/sql.js';
import { invalidState } from '../errors/errors.js';
import { withQuotas } from '../limits/quotas.js';
import { ownFields, withNumberRetries, type GivenOwnFields } from '../policies/create-policy.js';
import type { LedgerScope } from '../policies/ledger/ledger-scope.js';
import { writeOpening } from '../policies/ledger/ledger-write.js';
import { draftPolicy, type NewPolicyFields } from '../policies/ledger/opening.js';
import { openingEntry } from '../policies/ledger/ledger-entry.js';
import { quotedFields } from '../policies/priced-body.js';
import type { PolicyRead } from '../policies/policy.reads.js';
import { ORGANIZATION_JSON, type OrganizationRead } from '../organizations/organization.reads.js';
import { isUuid } from '../values/identifiers.js';
import { QUOTE_SELECT, QUOTE_STATUS, quoteNotFound, quoteRead, type QuoteRead } from './quote.reads.js';

/**
 * Issuing a quote (contract section 14, `POST /api/v1/policy` and `createPolicy` with
 * `quoteId`), in one transaction:
 *
 *   1. `lockOpenQuote(tx, principal, quoteId)`: the quote, its row locked until the
 *      transaction ends, so two issues of one quote are serialized and the second sees it
 *      issued (409 INVALID_STATE); 404 out of reach; 409 INVALID_STATE when issued or expired.
 *   2. insert the policy from the quote's fields, `coverage` and `charges` as stored (the quoted
 *      price, whatever the catalog says now), with the policy's own fields from the request
 *      (`number`, `internalID`: ownFields), and its `policy.created` event (the policy create's
 *      one statement, by the ledger's writer, which marks the Idempotency-Key).
 *   3. `markQuoteIssued(tx, quoteId, policyId)`, and commit.
 *
 * A server-assigned number that loses a race rolls the whole transaction back (lock included)
 * and it runs again from step 1: nothing is left half-issued.
 */
export async function issueQuote(scope: LedgerScope, quoteId: string, given: GivenOwnFields): Promise<PolicyRead> {
  const issued = await withNumberRetries(scope, given.number, () =>
    withQuotas(() =>
      scope.db.transaction(async (tx) => {
        const quote = await lockOpenQuote(tx, scope.principal, quoteId);
        const fields: NewPolicyFields = { ...ownFields(given), ...quotedFields(quote, quote.coverage) };
        const policy = await writeOpening(tx, scope, draftPolicy(fields, quote.organization, quote.charges, scope), [
          { type: 'quote', id: quote.id },
        ]);
        await markQuoteIssued(tx, quote.id, policy.id);
        return policy;
      }),
    ),
  );
  // Committed (ledger-scope.ts, `observe`).
  scope.observe?.(openingEntry('issuance', issued));
  return issued;
}

export interface QuoteToIssue extends QuoteRead {
  coverageSlug: string;
  organization: OrganizationRead;
}

/** `for update of q`: only the quote's row is locked, not its organization's. */
const OPEN_QUOTE_FOR_UPDATE = perAccess(
  (access) => `select ${QUOTE_SELECT}, q.coverage_slug as "coverageSlug", ${ORGANIZATION_JSON} as organization
  from quote q join organization o on o.id = q.organization_id
  where q.id = ? and ${access}
  for update of q`,
);

/** Inside the issuing transaction only: the lock lasts until it ends. */
export async function lockOpenQuote(tx: Transaction, principal: Principal, quoteId: string): Promise<QuoteToIssue> {
  if (!tx.inTransaction) throw new Error('lockOpenQuote needs the issuing transaction: its lock would end with the statement');
  if (!isUuid(quoteId)) throw quoteNotFound();
  const { sql, params } = accessPredicate('o', principal);
  const [row] = await tx.query(OPEN_QUOTE_FOR_UPDATE(sql), [quoteId.toLowerCase(), ...params]);
  if (!row) throw quoteNotFound();
  const quote = { ...quoteRead(row), coverageSlug: row.coverageSlug as string, organization: row.organization as OrganizationRead };
  if (quote.status !== 'open') throw invalidState(`This quote is ${quote.status}: only an open quote can be issued.`);
  return quote;
}

/**
 * Records the policy issued from a quote locked by lockOpenQuote, in the same transaction. The
 * unique `quote_policy_unique` and the `policy_id is null` guard keep it to one policy per
 * quote even if a caller skipped the lock.
 */
export async function markQuoteIssued(tx: Transaction, quoteId: string, policyId: string): Promise<void> {
  const marked = await tx.query(
    `update quote q set policy_id = ?, issued_at = now() where q.id = ? and q.policy_id is null and (${QUOTE_STATUS}) = 'open' returning 1`,
    [policyId, quoteId],
  );
  if (marked.length === 0) throw invalidState('This quote is no longer open: only an open quote can be issued.');
}
