import { rfc3339, type ReadColumns, type ReadOf } from '../database/read-model.js';
import { pages } from '../graphql/batch.js';
import type { PolicyTransaction } from './policy-transaction.entity.js';
import { policyRowsPage } from './policy-rows-page.js';

/** A policy's transactions (spec section 14) as reads serve them, over the row alias `t`. */
type HiddenTransaction = 'policy';

export const TRANSACTION_COLUMNS = {
  id: 't.id',
  type: 't.type',
  effectiveDate: 't.effective_date',
  createdAt: rfc3339('t.created_at'),
  createdBy: 't.created_by_sub',
  changes: 't.changes',
} as const satisfies ReadColumns<PolicyTransaction, HiddenTransaction>;

export type TransactionRead = ReadOf<PolicyTransaction, HiddenTransaction>;

/** A page of transactions per policy at once, oldest first, by `policy_transaction_policy_seq_index`. */
export const TRANSACTIONS_PAGE = policyRowsPage('policy_transaction', 't', TRANSACTION_COLUMNS);

/** A policy's transactions, a page of each policy's at once (`ctx.load(transactionPages, key)`; the owner is the policy). */
export const transactionPages = pages<TransactionRead>({ page: TRANSACTIONS_PAGE });
