import cors from 'cors';
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';

/** Any http://localhost:<port>, http://127.0.0.1:<port> or http://[::1]:<port>: a developer's own pages. */
const LOCAL_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/**
 * CORS as spec section 9 says, with the `cors` package, before anything else (a preflight
 * never needs a token and never counts against a budget). An allowed origin is echoed, with
 * `Vary: Origin`; a preflight gets 204 with the methods, the request headers this API reads,
 * and a max age; every answer exposes the headers a client needs to read. Tokens travel in
 * headers, never cookies, so credentials are never allowed. A disallowed origin gets no
 * `Access-Control-*` header at all and is otherwise served as usual: CORS is not authentication.
 */
export function corsPolicy(origins: Config['corsOrigins']): RequestHandler {
  const allowed = (origin: string): boolean =>
    origins === '*' || (origins === 'localhost' ? LOCAL_ORIGIN.test(origin) : origins.includes(origin));
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed(origin) ? origin : false),
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Idempotency-Key',
      'If-Match',
      'X-Request-Id',
      'apollo-require-preflight',
      'Consistency-Token',
    ],
    exposedHeaders: [
      'X-Request-Id',
      'ETag',
      'Idempotent-Replayed',
      'Retry-After',
      'WWW-Authenticate',
      'RateLimit',
      'RateLimit-Policy',
      'Consistency-Token',
    ],
    credentials: false,
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
}
