import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { auditExport, auditFilters } from '../audit/audit.reads.js';
import { assertScope } from '../auth/scope-gate.js';
import type { Gateway } from '../database/database.js';
import { asGraphQLError } from '../errors/safe-errors.js';
import { requireAuthentication } from '../http/authentication-gate.js';
import { sendError } from '../http/write-answer.js';
import { organizationNotFound, targetOrganizationId } from '../organizations/organization.reads.js';
import { problem } from './openapi-parts.js';
import { refuseUnknownParameters, singleParameter } from './query-parameters.js';
import type { PlainRoute } from './route-entry.js';
import { AUDIT_RANGE_PARAMETERS, AUDIT_SUBTREE } from './routes/audit-log.js';

/**
 * `GET /api/v1/audit-log/export` (contract section 21): the subtree's entries oldest first as
 * NDJSON, in constant memory whatever the range. Not a GraphQL document (an answer is one value,
 * held whole; this is a stream): a plain route behind the same authentication gate and rate
 * limits as every `/api/v1` route (app.ts mounts it after them), holding the caller's in-flight
 * slot while it streams. Each batch (audit.reads.ts, `auditExport`) is read only once the socket
 * has taken the one before (`write` returning false waits for `drain`), so a slow reader holds
 * one batch, not the range.
 */
export const AUDIT_EXPORT_PATH = '/api/v1/audit-log/export';

/** What an API key needs to export (contract section 20: the audit log, `audit:read`). */
export const EXPORT_SCOPE = 'audit:read';

/** The export as the route table describes its entries: openapi.ts writes its path from it, and its query is checked alike. */
export const AUDIT_EXPORT_ROUTE: PlainRoute = {
  method: 'GET',
  path: AUDIT_EXPORT_PATH,
  query: [AUDIT_SUBTREE, ...AUDIT_RANGE_PARAMETERS],
  scopes: [EXPORT_SCOPE],
  doc: {
    operationId: 'exportAuditLog',
    summary: "Stream the audit entries of an organization's subtree, oldest first, as NDJSON",
    description:
      'One entry a line, in constant memory whatever the range; each line also carries `position` and `prevHash`, so that the chain can be checked offline (docs/decisions.md, "The audit log").',
    tag: 'Audit log',
    answer: { description: 'The entries, one JSON object a line', content: { 'application/x-ndjson': { schema: { type: 'string' } } } },
    errors: {
      400: problem('`since` or `until` is not RFC 3339, or no `organizationId` and no org claim'),
      404: problem('`organizationId` names no organization the caller may access'),
    },
  },
};

/** Routes served outside REST_ROUTES, described beside them. */
export const PLAIN_ROUTES: readonly PlainRoute[] = [AUDIT_EXPORT_ROUTE];

export function auditExportRoute(db: Gateway, logger: Logger): RequestHandler[] {
  const stream = async (req: Request, res: Response): Promise<void> => {
    const principal = res.locals.authentication.principal;
    // requireAuthentication has answered a request without one.
    if (!principal) return;
    // The scope the audit log's other routes declare on their fields (auth/scope-gate.ts), checked here as REST checks a route's.
    assertScope(principal, EXPORT_SCOPE);
    refuseUnknownParameters(req.query, AUDIT_EXPORT_ROUTE.query);
    const single = (name: string): string | null => singleParameter(req.query, name) ?? null;
    const range = auditFilters({ since: single('since'), until: single('until') });
    const batches = await auditExport(db, principal, targetOrganizationId(single('organizationId'), principal), range);
    if (!batches) throw organizationNotFound();
    let closed = false;
    res.on('close', () => (closed = true));
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    for await (const batch of batches) {
      if (closed) return;
      const text = batch.map((entry) => JSON.stringify(entry)).join('\n') + '\n';
      if (!res.write(text)) await drained(res);
    }
    res.end();
  };
  const handler: RequestHandler = (req, res) => {
    const work = stream(req, res).catch((error: unknown) => {
      if (!res.headersSent) return sendError(req, res, asGraphQLError(error));
      // Mid-stream: the client sees a cut response (no final newline), and the log says why.
      logger.warn({ err: error, requestId: res.locals.requestId }, 'audit log export cut short');
      res.destroy();
    });
    res.locals.holdSlot?.(work);
  };
  return [requireAuthentication({ surface: 'rest' }), handler];
}

/** Until the socket has room again, or is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
