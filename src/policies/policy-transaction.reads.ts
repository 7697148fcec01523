import { perAccess } from '../database/sql.js';
import { rfc3339, selectList, type ReadColumns, type ReadOf } from '../database/read-model.js';
import { pages } from '../graphql/batch.js';
import type { PolicyTransaction } from './policy-transaction.entity.js';

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

/**
 * A page of transactions per policy at once, oldest first (`pages` of graphql/batch.ts: ids,
 * access, after, page size). The policies reached this far passed the access rule already;
 * it is applied again so that the statement is safe on its own.
 */
export const TRANSACTIONS_PAGE = perAccess(
  (access) => `select * from (
  select ${selectList(TRANSACTION_COLUMNS)}, t.policy_id as owner, t.seq, row_number() over (partition by t.policy_id order by t.seq) as rank
  from policy_transaction t join policy p on p.id = t.policy_id join organization o on o.id = p.organization_id
  where t.policy_id = any(?::uuid[]) and ${access} and t.seq > ?::bigint
) page where rank <= ? order by owner, seq`,
);

/** A policy's transactions, a page of each policy's at once (`ctx.load(transactionPages, key)`; the owner is the policy). */
export const transactionPages = pages<TransactionRead>({ page: TRANSACTIONS_PAGE });
