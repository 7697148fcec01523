import type { NextFunction, Request, Response } from 'express';
import { authenticateRequest, authenticationRefusal, type AuthenticationPoint } from '../auth/authenticate.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import { sendError } from './write-answer.js';

/**
 * The one authentication gate, before any body is read: REST, `/graphql` and the rate limits
 * all take the principal from `res.locals.authentication`. It never answers by itself; each
 * route refuses what it must (REST: no principal; `/graphql`: a refused token, or no token in
 * production, or rather with the developer pages off), so that a caller without a valid token learns that first, whatever its body.
 * Who the request is from is decided by auth/authenticate.ts; this only reads the headers and keeps the result.
 */
export function authenticationGate(verify: TokenVerifier) {
  return (req: Request, res: Response, next: NextFunction): void => {
    authenticateRequest({ raw: req.rawHeaders, authorization: req.headers.authorization }, verify).then((authentication) => {
      res.locals.authentication = authentication;
      res.locals.sub = authentication.principal?.sub;
      next();
    }, next);
  };
}

/** The rule (auth/authenticate.ts, authenticationRefusal) as a step before the body is read: answers the 401, or lets the request on. */
export function requireAuthentication(point: AuthenticationPoint) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const refusal = authenticationRefusal(res.locals.authentication, point);
    if (refusal) return sendError(req, res, refusal);
    next();
  };
}
