import { context } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { servedByGraphql } from './write-answer.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { abandonRequestSpan, endRequestSpan, startRequestSpan } from '../observability/request-span.js';

export interface LifecycleOptions {
  draining: () => boolean;
  metrics: ServiceMetrics;
  /** The route pattern of a path Express matched no route for (observability/route-names.ts). */
  routeOf: (path: string) => string;
  /** Tracing is on: each request has a span (observability/request-span.ts), its access line the trace id. */
  traced: boolean;
}

/** A client's X-Request-Id is reused when it is 1-128 printable ASCII characters. */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The first and last thing of every request: its id (the client's X-Request-Id or a new one,
 * echoed back), `Connection: close` while the server drains, and when it finishes one JSON
 * line: id, method, path (never the query string), route, status, duration and who asked (never the token). pino-http
 * wrote the same line through a child logger made per request, which at a thousand requests a
 * second cost 8% of the CPU (docs/benchmark.md); pino writes this one directly. The same moment
 * counts the request in the metrics, and ends the request's span, named after its route.
 */
export function requestLifecycle(logger: Logger, { draining, metrics, routeOf, traced }: LifecycleOptions) {
  // The access line holds only the fields written below, none of them secret, so it skips the
  // logger's redaction: its wildcard paths walked every line and cost ~10% of a read's CPU.
  const accessLog = logger.child({}, { redact: [] });
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    // The request's deadline counts from here, so a request waiting its turn is not given longer.
    res.locals.startedAt = started;
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    // Answers carry personal data and are per caller: never stored by a cache, never sniffed.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (draining()) res.setHeader('Connection', 'close');
    // The request's span (observability/request-span.ts), active while it is handled.
    const span = traced ? startRequestSpan(req) : undefined;
    res.once('finish', () => {
      const status = res.statusCode;
      const path = req.originalUrl.split('?')[0];
      const route = req.route ? req.baseUrl + req.route.path : routeOf(path);
      metrics.observeRequest(req.method, route, status, (performance.now() - started) / 1000);
      // A `/graphql` request refused before the core named its operation counts as one too.
      const graphql = res.locals.graphql ?? (servedByGraphql(req) ? {} : undefined);
      if (graphql) metrics.observeGraphqlOperation({ ...graphql, codes: res.locals.codes });
      if (span) endRequestSpan(span, req.method, route, status);
      // A 5xx was logged once as an error, with its cause, where it happened; this is its access
      // line. A 503 (the database away, a deadline) is an answer the contract expects, with its
      // Retry-After: info, so an outage is not a warning per request (security review 3, L2).
      accessLog[status >= 500 && status !== 503 ? 'warn' : 'info'](
        {
          // The path alone: a query string can carry a token or GraphQL variables with a cvc.
          req: { id: requestId, method: req.method, url: path },
          route,
          traceId: span?.span.spanContext().traceId,
          sub: res.locals.sub,
          // On /graphql: operationName and operationType (spec section 13).
          ...res.locals.graphql,
          // The error codes answered, REST's and /graphql's alike (review F15).
          codes: res.locals.codes,
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
        },
        'request completed',
      );
    });
    if (!span) return next();
    res.once('close', () => {
      if (!res.writableFinished) abandonRequestSpan(span);
    });
    context.with(span.context, next);
  };
}
