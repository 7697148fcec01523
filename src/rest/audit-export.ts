import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { auditExport, auditFilters } from '../audit/audit.reads.js';
import { assertScope } from '../auth/scope-gate.js';
import type { Gateway } from '../database/database.js';
import { asGraphQLError } from '../errors/safe-errors.js';
import { requireAuthentication } from '../http/authentication-gate.js';
import { sendError } from '../http/write-answer.js';
import { singleParameter } from './routes.js';
import { organizationNotFound, targetOrganizationId } from '../organizations/organization.reads.js';

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

/** Routes served outside REST_ROUTES (their OpenAPI paths are written beside the others). */
export const PLAIN_ROUTES = [{ method: 'GET', path: AUDIT_EXPORT_PATH }] as const;

export function auditExportRoute(db: Gateway, logger: Logger): RequestHandler[] {
  const stream = async (req: Request, res: Response): Promise<void> => {
    const principal = res.locals.authentication.principal;
    // requireAuthentication has answered a request without one.
    if (!principal) return;
    // The scope the audit log's other routes declare on their fields (auth/scope-gate.ts), checked here as REST checks a route's.
    assertScope(principal, EXPORT_SCOPE);
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
