import { perAccess } from '../database/sql.js';
import { selectList } from '../database/read-model.js';

/**
 * The pager's statement (`pages` of graphql/batch.ts: ids, access, after, page size) over rows a
 * policy owns, numbered by their own `seq` (its transactions, its payments and refunds): a page
 * of each policy's at once, oldest first, `columns` over the row alias `alias`. The policies
 * reached this far passed the access rule already; it is applied again so that the statement is
 * safe on its own.
 */
export function policyRowsPage(table: string, alias: string, columns: Readonly<Record<string, string>>): (access: string) => string {
  return perAccess(
    (access) => `select * from (
  select ${selectList(columns)}, ${alias}.policy_id as owner, ${alias}.seq, row_number() over (partition by ${alias}.policy_id order by ${alias}.seq) as rank
  from ${table} ${alias} join policy p on p.id = ${alias}.policy_id join organization o on o.id = p.organization_id
  where ${alias}.policy_id = any(?::uuid[]) and ${access} and ${alias}.seq > ?::bigint
) page where rank <= ? order by owner, seq`,
  );
}
