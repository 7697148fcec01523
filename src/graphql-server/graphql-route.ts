import type { Request, RequestHandler, Response } from 'express';
import { requireAuthentication } from '../http/authentication-gate.js';
import { graphqlMediaType } from '../errors/error-head.js';
import { writeAnswer } from '../http/write-answer.js';
import type { Answer } from '../errors/answer.js';
import { answerGraphql, type GraphqlSettings, type TextExecutor } from '../operations/graphql-operation.js';
import { badRequest, graphqlParams, type GraphqlHttpRequest } from '../operations/graphql-request.js';
import type { OperationCore } from '../operations/operation-core.js';
import type { OperationOutcome } from '../observability/metrics.js';
import type { TrustedDocuments } from './trusted-documents.js';

export interface GraphqlRouteOptions extends GraphqlSettings {
  /** With the developer pages on, Sandbox and GraphiQL load the schema without a token. */
  developerPages: boolean;
  /** JSON body parsing, after the authentication check. */
  bodyParser: RequestHandler;
  /** The frontends' manifest (GRAPHQL_TRUSTED_DOCUMENTS), or none. */
  trustedDocuments: TrustedDocuments;
  /** Apollo Server, for documents sent as text (apollo.ts). */
  executeText: TextExecutor;
  /** Apollo Sandbox's page, for a browser's GET (apollo.ts). */
  landingPage: (req: Request) => Promise<Answer>;
}

/**
 * `/graphql` as an adapter of the operation core (src/operations/): a refused token (or a missing
 * one, unless the developer pages are on) is a 401 before the body is read; then the request is
 * read as GraphQL over HTTP and answered by the core, which the one writer sends.
 */
export function graphqlRoute(core: OperationCore, options: GraphqlRouteOptions): RequestHandler[] {
  const refuseUnauthenticated = requireAuthentication({ surface: 'graphql', anonymousIntrospection: options.developerPages });

  const answer = async (req: Request, res: Response): Promise<Answer> => {
    if (options.developerPages && req.method === 'GET' && prefersHtml(req)) return options.landingPage(req);
    // The access line (http/request-lifecycle.ts) names the operation, once the core knows it.
    const operation: OperationOutcome = {};
    res.locals.graphql = operation;
    const mediaType = graphqlMediaType(req.get('accept'));
    const request: GraphqlHttpRequest = {
      method: req.method,
      search: searchOf(req.url),
      body: req.body as unknown,
      header: (name) => req.get(name),
    };
    return core.run(
      {
        surface: { kind: 'graphql', mediaType },
        requestId: res.locals.requestId,
        startedAt: res.locals.startedAt,
        authentication: res.locals.authentication,
        holdSlot: res.locals.holdSlot,
        operation,
        consistencyToken: req.get('consistency-token'),
      },
      async (context) => {
        if (bareGet(req)) throw badRequest(bareGetHint(options.developerPages));
        const params = graphqlParams(request);
        return answerGraphql(core, options, context, {
          params,
          method: req.method,
          mediaType,
          idempotencyKey: req.get('idempotency-key'),
          trusted: options.trustedDocuments.find(params, req.method),
          executeText: options.executeText,
        });
      },
    );
  };

  return [refuseUnauthenticated, options.bodyParser, (req, res, next) => void answer(req, res).then((a) => writeAnswer(req, res, a), next)];
}

/** A GET that prefers HTML to JSON, as Apollo Server decides it: a browser, shown Apollo Sandbox. */
function prefersHtml(req: Request): boolean {
  return req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
}

/**
 * A GET with no query string at all (curl, a link): it asks for nothing, so it gets one line on
 * what to send, not the CSRF paragraph (issue 25, F11). A GET that sends a query meets the CSRF rule.
 */
function bareGet(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && !req.url.includes('?');
}

function bareGetHint(developerPages: boolean): string {
  const send =
    'Send a GraphQL operation: POST /graphql with a JSON body {"query": "{ viewer { sub } }"} and Authorization: Bearer <token>.';
  return developerPages ? `${send} In a browser: GraphiQL at /graphiql, Apollo Sandbox at /graphql.` : send;
}

function searchOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start);
}
