import type { RequestAuthentication } from '../auth/authenticate.js';
import type { OperationOutcome } from '../observability/metrics.js';

/**
 * What the middleware of one request hand each other on `res.locals`, declared once (Express 5
 * types `res.locals` by merging into `Express.Locals`): who writes each key, and who reads it.
 */
declare global {
  // Express's own types declare Locals in this namespace; merging into it takes one.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Written by http/request-lifecycle.ts first: the request's id (X-Request-Id). */
      requestId: string;
      /** Written by http/request-lifecycle.ts first: when the request arrived (performance.now()), where its deadline counts from. */
      startedAt: number;
      /** Written by the authentication gate (http/authentication-gate.ts) before any route. */
      authentication: RequestAuthentication;
      /** The principal's `sub` for the access line, when there is one (the gate). */
      sub?: string;
      /** Set by the in-flight limit (http/rate-limit-gate.ts, its place from limits/rate-limits.ts): holds the caller's slot until `work` settles. */
      holdSlot?: (work: Promise<unknown>) => void;
      /** A `/graphql` request's operation name and type, for the access line and the metrics (the operation core fills it in). */
      graphql?: OperationOutcome;
      /** The error codes answered (http/write-answer.ts), for the access line and the metrics. */
      codes?: readonly string[];
    }
  }
}

export {};
