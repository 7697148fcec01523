import { getNamedType } from 'graphql';
import type { MiddlewareFn } from 'type-graphql';

/**
 * AUDIT_READS (contract section 21): what a query returned of policies and organizations, for
 * the request's `policy.read` and `organization.read` entries (written by the operation core once
 * the answer is made: operations/read-entries.ts). Off by default, and then nothing of it runs:
 * the schema is built without the middleware and no request has a collector.
 */

/** At most this many targets an entry names (the first ones returned). */
export const MAX_READ_TARGETS = 100;

export type ReadTargetType = 'policy' | 'organization';

/** One request's reads: per type, each id once, with the organization it belongs to. */
export class ReadAudit {
  /** Per type, each id read and its organization, in the order first returned. */
  readonly read: Record<ReadTargetType, Map<string, string>> = { policy: new Map(), organization: new Map() };

  add(type: ReadTargetType, id: string, organizationId: string): void {
    const ids = this.read[type];
    if (ids.size < MAX_READ_TARGETS && !ids.has(id)) ids.set(id, organizationId);
  }

  get empty(): boolean {
    return this.read.policy.size === 0 && this.read.organization.size === 0;
  }
}

interface Collecting {
  readAudit?: ReadAudit;
}

/**
 * The middleware of every resolved field (TypeGraphQL's global middlewares; the simple fields of
 * an object type have none, which is why a connection is read from its field's result): a
 * query's field that returns policies or organizations, alone, in a list or in a connection,
 * adds them to the request's collector. Mutations are audited as writes.
 */
export const collectReads: MiddlewareFn<Collecting> = async ({ context, info }, next) => {
  const result: unknown = await next();
  const reads = context.readAudit;
  if (reads && info.operation.operation === 'query') collect(reads, getNamedType(info.returnType).name, result);
  return result;
};

function collect(reads: ReadAudit, typeName: string, value: unknown): void {
  if (value == null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collect(reads, typeName, item);
    return;
  }
  const record = value as { id?: string; organizationId?: string; edges?: Array<{ node: unknown }> };
  if (typeName === 'Policy' && record.id && record.organizationId) reads.add('policy', record.id, record.organizationId);
  else if (typeName === 'Organization' && record.id) reads.add('organization', record.id, record.id);
  else if ((typeName === 'PolicyConnection' || typeName === 'OrganizationConnection') && Array.isArray(record.edges)) {
    const nodeType = typeName === 'PolicyConnection' ? 'Policy' : 'Organization';
    for (const edge of record.edges) collect(reads, nodeType, edge.node);
  }
}
