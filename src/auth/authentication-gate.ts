import type { NextFunction, Request, Response } from 'express';
import type { OperationDefinitionNode } from 'graphql';
import { sendError } from '../errors/write-answer.js';
import type { ServiceError } from '../errors/errors.js';
import { authenticate, needsPrincipal, refusedToken, type Authentication } from './authenticate.js';
import type { TokenVerifier } from './token-verifier.js';

/**
 * Who a request is from, decided once per request by the gate: a principal, or the 401 to answer
 * when the request needs one and has none (never both, never neither).
 */
export type RequestAuthentication = Authentication & {
  /** Whether an Authorization header was sent at all (a refused one is always a 401). */
  tokenSent: boolean;
};

/**
 * The one authentication gate, before any body is read: REST, `/graphql` and the rate limits
 * all take the principal from `res.locals.authentication`. It never answers by itself; each
 * route refuses what it must (REST: no principal; `/graphql`: a refused token, or no token in
 * production, or rather with the developer pages off), so that a caller without a valid token learns that first, whatever its body.
 */
export function authenticationGate(verify: TokenVerifier) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = authorizationHeader(req);
    const result =
      header === DUPLICATE ? Promise.resolve(refusedToken('send a single Authorization header')) : authenticate(header, verify);
    result.then((authentication) => {
      res.locals.authentication = { ...authentication, tokenSent: header !== undefined } satisfies RequestAuthentication;
      res.locals.sub = authentication.principal?.sub;
      next();
    }, next);
  };
}

const DUPLICATE = Symbol('duplicate');

/**
 * Node keeps the first of two Authorization headers and drops the other; a proxy in front may
 * pick the last. Two headers are refused, so both always agree on who is asking.
 */
function authorizationHeader(req: Request): string | undefined | typeof DUPLICATE {
  const raw = req.rawHeaders;
  let seen = 0;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index].length === 13 && raw[index].toLowerCase() === 'authorization') seen++;
  }
  return seen > 1 ? DUPLICATE : req.headers.authorization;
}

/** Where a request is asked whether it may go on without a principal. */
export type AuthenticationPoint =
  | { surface: 'rest' }
  | { surface: 'graphql'; anonymousIntrospection: boolean }
  | { surface: 'graphql'; anonymousIntrospection: boolean; operation: OperationDefinitionNode };

/**
 * The one rule for refusing a request for want of a principal (its 401), asked by each surface
 * as soon as it can: REST before the body (every route needs a principal); `/graphql` before
 * the body for a token that was sent and refused, or for none with the developer pages off; `/graphql` again
 * once the operation is known (every operation needs one but an introspection-only query
 * while the developer pages are on, so Sandbox and GraphiQL can load the schema).
 */
export function authenticationRefusal(
  authentication: Authentication & { tokenSent?: boolean },
  point: AuthenticationPoint,
): ServiceError | null {
  if (authentication.principal) return null;
  const { failure, tokenSent } = authentication;
  if (point.surface === 'rest') return failure;
  if ('operation' in point) return needsPrincipal(point.operation, point.anonymousIntrospection) ? failure : null;
  return tokenSent || !point.anonymousIntrospection ? failure : null;
}

/** The rule as a step before the body is read: answers the 401, or lets the request on. */
export function requireAuthentication(point: AuthenticationPoint) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const refusal = authenticationRefusal(res.locals.authentication, point);
    if (refusal) return sendError(req, res, refusal);
    next();
  };
}
