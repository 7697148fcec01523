import type { RequestHandler } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { sendError, writeAnswer } from './write-answer.js';
import { unauthenticated } from '../errors/errors.js';
import type { ServiceMetrics } from '../observability/metrics.js';

/**
 * `GET /metrics` in Prometheus's text format (spec section 13). With `token` set, only
 * `Authorization: Bearer <token>` is answered (compared in constant time); without one it is
 * open, which app.ts allows outside production only.
 */
export function metricsRoute(metrics: ServiceMetrics, token: string | undefined): RequestHandler {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return async (req, res, next) => {
    if (expected) {
      const given = Buffer.from(req.get('authorization') ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return sendError(
          req,
          res,
          unauthenticated('Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.', 'Bearer realm="metrics"'),
        );
      }
    }
    try {
      const text = await metrics.scrape();
      writeAnswer(req, res, { status: 200, contentType: metrics.registry.contentType, body: text, headers: {} });
    } catch (error) {
      next(error);
    }
  };
}
