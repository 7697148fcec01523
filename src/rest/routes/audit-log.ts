import type { AuditLogQuery, AuditLogVerificationQuery } from '../generated/operations.js';
import { listBody, PAGE_PARAMETERS, pageVariables } from '../list-page.js';
import { problem } from '../openapi-parts.js';
import { AUDIT_LOG, AUDIT_LOG_VERIFICATION } from '../operations.js';
import { listParameter, organizationIdParameter, singleParameter, type QueryParameter } from '../query-parameters.js';
import { get, type RestRoute } from '../route-entry.js';

/** A range of entries, RFC 3339: the list's and the export's (rest/audit-export.ts). */
export const AUDIT_RANGE_PARAMETERS: readonly QueryParameter[] = [
  { name: 'since', schema: { type: 'string', format: 'date-time' }, description: 'Entries at or after (RFC 3339)' },
  { name: 'until', schema: { type: 'string', format: 'date-time' }, description: 'Entries before (RFC 3339)' },
];
export const AUDIT_SUBTREE = organizationIdParameter("Whose subtree; default the token's org");

/** The audit log (contract section 21); the export, a stream, is a route of its own: rest/audit-export.ts. */
export const AUDIT_LOG_ROUTES: RestRoute[] = [
  get<AuditLogQuery>({
    path: '/api/v1/audit-log',
    document: AUDIT_LOG,
    query: [
      AUDIT_SUBTREE,
      { name: 'action', schema: { type: 'string' }, description: 'Comma-separated actions, e.g. `policy.cancel,policy.reinstate`' },
      { name: 'actorSub', schema: { type: 'string' }, description: "Only this actor's entries (its `sub`, e.g. `apikey:<id>`, `system`)" },
      ...AUDIT_RANGE_PARAMETERS,
      ...PAGE_PARAMETERS,
    ],
    variables: ({ query }) => ({
      organizationId: singleParameter(query, 'organizationId') ?? null,
      actions: listParameter(query, 'action'),
      actorSub: singleParameter(query, 'actorSub') ?? null,
      since: singleParameter(query, 'since') ?? null,
      until: singleParameter(query, 'until') ?? null,
      ...pageVariables(query),
    }),
    response: (data) => listBody(data.auditLog),
    doc: {
      operationId: 'listAuditLog',
      summary: "List the audit entries of an organization's subtree, newest first",
      description:
        "Every successful write appends one entry in its own transaction (contract section 21). `organizationId` defaults to the token's org. " +
        'An entry has `hash` once sealed (within seconds). Pass `nextCursor` as `after` while `hasMore`.',
      tag: 'Audit log',
      answer: { description: 'A page', list: 'AuditEntryList', schema: 'AuditEntry', derive: ['edges', 'node'] },
      errors: { 404: problem('`organizationId` names no organization the caller may access') },
    },
  }),
  get<AuditLogVerificationQuery>({
    path: '/api/v1/audit-log/verify',
    document: AUDIT_LOG_VERIFICATION,
    query: [organizationIdParameter("A root organization; default the token's org")],
    variables: ({ query }) => ({ organizationId: singleParameter(query, 'organizationId') ?? null }),
    response: (data) => data.auditLogVerification,
    doc: {
      operationId: 'verifyAuditLog',
      summary: "Check a root organization's audit chain",
      description:
        'Walks the sealed entries of the tree in chain order: `ok` false names the first entry whose chain breaks (changed, after a removed one, or out of order). Entries not sealed yet (the last seconds) are not checked.',
      tag: 'Audit log',
      answer: { description: 'Checked', schema: 'AuditVerification', derive: [] },
      errors: {
        400: problem('`organizationId` is not a root organization, or is missing with no org claim'),
        404: problem('`organizationId` names no organization the caller may access'),
      },
    },
  }),
];
