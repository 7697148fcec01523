import type { NextFunction, Request, Response } from 'express';
import type { RateLimitDecision, RateLimits } from '../limits/rate-limits.js';
import { sendError } from './write-answer.js';

/**
 * The per-caller limits (limits/rate-limits.ts decides them) as Express middleware after the
 * authentication gate: counts the request against its `sub` (or its address), then takes a
 * place among the caller's requests in flight, which the routes hold for the work they start
 * (`res.locals.holdSlot`) and which is given back when the response closes. Each decision's
 * RateLimit fields go on the response; a refusal is answered here.
 */
export function rateLimitGate(limits: RateLimits) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const { principal } = res.locals.authentication;
    const admit = () => {
      const place = principal && limits.inFlight(principal.sub, res.locals.startedAt);
      if (!place) return next();
      // The client may have left while its token was checked: nothing to admit then (a place
      // taken now would never be given back, its 'close' having passed).
      if (req.socket.destroyed) return;
      res.locals.holdSlot = place.hold;
      // The bytes this answer wrote on its connection (one request at a time on it): its size, headers included.
      const written = req.socket.bytesWritten;
      if (place.take(next, (decision) => void passes(req, res, decision)))
        res.once('close', () => place.answered(req.socket.bytesWritten - written));
    };
    const counted = limits.countRequest(principal ? principal.sub : null, req.ip);
    if (!counted) return admit();
    counted.then((decision) => {
      if (passes(req, res, decision)) admit();
    }, next);
  };
}

/**
 * Puts a decision's RateLimit fields on the response, and answers its refusal: whether the
 * request may go on (no refusal).
 */
export function passes(req: Request, res: Response, { fields, refusal }: RateLimitDecision): boolean {
  for (const [name, value] of fields) res.appendHeader(name, value);
  if (!refusal) return true;
  sendError(req, res, refusal);
  return false;
}
