import type { Request } from 'express';
import type { RequestClient } from '../graphql/context.js';

/**
 * Who sent a request, as the audit log records it (contract section 21), the same on REST and
 * `/graphql`: its address as Express judges it (`trust proxy`), and its User-Agent header.
 */
export function requestClient(req: Request): RequestClient {
  return { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null };
}
