import type { Request, Response } from 'express';
import type { GraphQLError } from 'graphql';
import { errorAnswer, REST, type Answer, type Surface } from '../errors/answer.js';
import { graphqlMediaType } from '../errors/error-head.js';

/**
 * The one place the Express host writes a status: every answer, the operation core's and each
 * refusal before a route runs (sendError), goes out through here. A GET of a record whose
 * `ETag` the client already holds (`If-None-Match`) is a 304 without a body.
 */
export function writeAnswer(req: Request, res: Response, answer: Answer): void {
  if (answer.codes) res.locals.codes = answer.codes;
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === 'string') res.setHeader(name, value);
    else for (const item of value) res.appendHeader(name, item);
  }
  const etag = answer.headers.ETag;
  if (answer.status === 200 && typeof etag === 'string' && notModified(req, etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = answer.status;
  res.setHeader('Content-Type', answer.contentType.includes('charset') ? answer.contentType : `${answer.contentType}; charset=utf-8`);
  // Node sets Content-Length from a body given whole to end(), and sends none of it to a HEAD.
  res.end(answer.body);
}

/** `If-None-Match` names this entity tag (or `*`), on a read. */
function notModified(req: Request, etag: string): boolean {
  const given = req.headers['if-none-match'];
  if (given === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  return given
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/**
 * Whether Express routes this request to `app.all('/graphql', ...)`: that route matches without
 * regard to case and with a trailing slash (`/GraphQL`, `/graphql/`), so an exact comparison
 * would answer those with problem+json instead of GraphQL's `{ errors }`.
 */
export function servedByGraphql(req: Request): boolean {
  const path = req.originalUrl.split('?')[0].toLowerCase();
  return path === '/graphql' || path === '/graphql/';
}

/** Where a request's errors are answered: `{ errors }` on `/graphql`, RFC 9457 problem+json everywhere else. */
export function surfaceOf(req: Request): Surface {
  return servedByGraphql(req) ? { kind: 'graphql', mediaType: graphqlMediaType(req.get('accept')) } : REST;
}

/** Answers a request with one error, before or outside the operation core (a 401, a 404, a 415, a refusal by the limits). */
export function sendError(req: Request, res: Response, error: GraphQLError): void {
  writeAnswer(req, res, errorAnswer(surfaceOf(req), [error], { requestId: res.locals.requestId }));
}
