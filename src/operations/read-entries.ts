import type { SqlClient } from '../database/database.js';
import type { RequestContext } from '../graphql/context.js';
import type { ReadAudit, ReadTargetType } from '../graphql/read-audit.js';
import { AUDIT_INSERT, auditRow, type AuditAction } from '../outbox/audit-entry.js';

const ACTION: Record<ReadTargetType, AuditAction> = { policy: 'policy.read', organization: 'organization.read' };

/**
 * A read request's audit entries (AUDIT_READS, contract section 21): for each type it returned,
 * one entry per tree the targets belong to (a request reads one tree, unless its caller owns
 * several roots), written for the deepest organization above all of them (so that the tree's
 * subtrees see what was read of them, and no other tree sees it). Two statements, only with
 * AUDIT_READS on.
 */
export async function recordReads(db: SqlClient, context: Pick<RequestContext, 'principal' | 'origin'>, reads: ReadAudit): Promise<void> {
  const principal = context.principal;
  if (!principal || reads.empty) return;
  const organizations = [...new Set(Object.values(reads.read).flatMap((ids) => [...ids.values()]))];
  const paths = new Map(
    (
      await db.query<{ id: string; path: string[] }>('select id, path from organization where id = any (?::uuid[])', [
        `{${organizations.join(',')}}`,
      ])
    ).map((row) => [row.id, row.path]),
  );
  const entries: unknown[][] = [];
  for (const [type, ids] of Object.entries(reads.read) as Array<[ReadTargetType, Map<string, string>]>) {
    const byTree = new Map<string, { targets: Array<{ type: ReadTargetType; id: string }>; common: string[] }>();
    for (const [id, organizationId] of ids) {
      const path = paths.get(organizationId);
      if (!path) continue;
      const tree = byTree.get(path[0]);
      if (!tree) byTree.set(path[0], { targets: [{ type, id }], common: path });
      else {
        tree.targets.push({ type, id });
        let shared = 0;
        while (shared < tree.common.length && tree.common[shared] === path[shared]) shared++;
        tree.common = tree.common.slice(0, shared);
      }
    }
    for (const { targets, common } of byTree.values()) {
      // The deepest organization on every target's path (the root at least: they share it).
      const organizationId = common[common.length - 1];
      entries.push(auditRow({ action: ACTION[type], actor: { principal, origin: context.origin }, organizationId, targets }));
    }
  }
  if (entries.length === 0) return;
  // One statement for all of them.
  const statement = entries.map((_entry, index) => `e${index} as (${AUDIT_INSERT})`).join(', ');
  await db.query(`with ${statement} select 1`, entries.flat());
}
