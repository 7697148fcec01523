import type { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { carriedHeaders, graphqlAnswerHead, headFor } from './error-head.js';
import type { OutageLog } from './outage-log.js';
import { PROBLEM_JSON, problemBody } from './problem.js';
import { safeError, statusOf, type SafeError } from './safe-errors.js';

/**
 * What a request is answered, as a value: the operation core (src/operations/) and every host
 * step make one, and one writer per host turns it into HTTP (http/write-answer.ts), as grafserv's
 * handlers return a result that one function writes.
 */
export interface Answer {
  status: number;
  contentType: string;
  body: string;
  /** Set on the response; a list is appended value by value (the RateLimit fields of several policies). */
  headers: Readonly<Record<string, string | readonly string[]>>;
  /** The error codes answered, for the access line and the metrics: kept as data, never read back out of the body. */
  codes?: readonly string[];
}

/** Where an answer goes: REST answers errors as problem+json, `/graphql` as `{ errors }` in the media type the client accepts. */
export type Surface = { kind: 'rest' } | { kind: 'graphql'; mediaType: string };

export const REST: Surface = { kind: 'rest' };

/**
 * Who is answered: a 500 carries the request id, to match the line logged here (by a logger that
 * names the request); a 503 for a lost database is counted by the service's outage log instead.
 */
export interface Asker {
  requestId?: string;
  logger?: Pick<Logger, 'error'>;
  outage?: Pick<OutageLog, 'refused'>;
}

/** A 200 with a JSON body. */
export function jsonAnswer(body: unknown): Answer {
  return { status: 200, contentType: 'application/json', body: JSON.stringify(body), headers: {} };
}

/**
 * The one error-to-HTTP function: errors as the answer of their surface, with the status of
 * their codes (spec section 6), the headers they carry, and each unexpected error logged once,
 * here, with its cause (the client sees only what `safeError` lets through); an answer refused
 * for a lost database is counted once, whatever number of its fields met it (outage-log.ts).
 */
export function errorAnswer(surface: Surface, errors: readonly GraphQLError[], asker: Asker): Answer {
  return surface.kind === 'rest' ? problemAnswer(errors, asker) : graphqlAnswer({ errors }, surface.mediaType, asker);
}

/**
 * A GraphQL result as an answer (the text documents Apollo Server ran, the prepared ones, the
 * refusals before either): one status from the errors' codes, whichever check raised them
 * (graphqlAnswerHead), no `data` when the request is refused, the headers the errors carry, and
 * an internal error's request id in its extensions.
 */
export function graphqlAnswer(result: { data?: unknown; errors?: readonly GraphQLError[] }, mediaType: string, asker: Asker): Answer {
  if (!result.errors?.length) return { status: 200, contentType: mediaType, body: JSON.stringify({ data: result.data }), headers: {} };
  const judged = judge(result.errors, asker);
  const codes = judged.map(({ safe }) => safe.extensions.code);
  const { status, refused } = graphqlAnswerHead(codes, mediaType);
  let headers: Record<string, string> = {};
  for (const { error, safe } of judged) {
    headers = { ...headers, ...headFor(safe.extensions.code, carriedHeaders(error)).headers };
    if (safe.extensions.code === 'INTERNAL_SERVER_ERROR' && asker.requestId)
      (safe.extensions as Record<string, unknown>).requestId = asker.requestId;
  }
  const errors = judged.map(({ safe }) => safe);
  const body = JSON.stringify(refused || result.data === undefined ? { errors } : { errors, data: result.data });
  return { status, contentType: mediaType, body, headers, codes: [...new Set(codes)] };
}

/** One problem for the request (RFC 9457): the error with the highest status decides. */
function problemAnswer(errors: readonly GraphQLError[], asker: Asker): Answer {
  const judged = judge(errors, asker);
  const worst = judged.reduce((a, b) => (statusOf(b.safe.extensions.code) > statusOf(a.safe.extensions.code) ? b : a));
  const { code, errors: fieldErrors } = worst.safe.extensions as { code: string; errors?: [] };
  const { status, headers } = headFor(code, carriedHeaders(worst.error));
  const body = problemBody({
    status,
    code,
    detail: worst.safe.message,
    errors: fieldErrors,
    requestId: status === 500 ? asker.requestId : undefined,
  });
  return { status, contentType: PROBLEM_JSON, body, headers, codes: [code] };
}

function judge(errors: readonly GraphQLError[], asker: Asker): Array<{ error: GraphQLError; safe: SafeError }> {
  let databaseAway: GraphQLError | undefined;
  const judged = errors.map((error) => {
    const { safe, unexpected, databaseAway: away } = safeError(error);
    if (unexpected) asker.logger?.error({ err: error.originalError ?? error }, 'unexpected error in a request');
    if (away) databaseAway ??= error;
    return { error, safe };
  });
  if (databaseAway) asker.outage?.refused(databaseAway.originalError ?? databaseAway);
  return judged;
}
