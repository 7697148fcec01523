import type { Request, RequestHandler, Response } from 'express';
import { requireAuthentication } from '../http/authentication-gate.js';
import type { RequestAuthentication } from '../auth/authenticate.js';
import { graphqlMediaType } from '../errors/error-head.js';
import { writeAnswer } from '../http/write-answer.js';
import type { Answer } from '../errors/answer.js';
import { answerGraphql, type GraphqlSettings, type TextExecutor } from '../operations/graphql-operation.js';
import { badRequest, graphqlParams, type GraphqlHttpRequest } from '../operations/graphql-request.js';
import type { OperationCore } from '../operations/operation-core.js';
import type { OperationOutcome } from '../observability/metrics.js';
import type { RequestClient } from '../graphql/context.js';
import type { TrustedDocuments } from './trusted-documents.js';
import { requestClient } from '../http/request-client.js';

/** What `/graphql` runs an operation with, whatever the host. */
export interface GraphqlCallSettings extends GraphqlSettings {
  /** With the developer pages on, Sandbox and GraphiQL load the schema without a token. */
  developerPages: boolean;
  /** The frontends' manifest (GRAPHQL_TRUSTED_DOCUMENTS), or none. */
  trustedDocuments: TrustedDocuments;
  /** Apollo Server, for documents sent as text (apollo.ts). */
  executeText: TextExecutor;
}

export interface GraphqlRouteOptions extends GraphqlCallSettings {
  /** JSON body parsing, after the authentication check. */
  bodyParser: RequestHandler;
  /** Apollo Sandbox's page, for a browser's GET (apollo.ts). */
  landingPage: (req: Request) => Promise<Answer>;
}

/** A `/graphql` request as its host hands it to the operation core: who asks, since when, and the request read as GraphQL over HTTP. Nothing of Express in it. */
export interface GraphqlCall extends GraphqlHttpRequest {
  requestId: string;
  /** The client's address and User-Agent, for the audit log. */
  client?: RequestClient;
  /** When the request arrived (performance.now()): its deadline counts from then. */
  startedAt: number;
  authentication: RequestAuthentication;
  /** Holds the caller's in-flight slot until the work settles (limits/rate-limits.ts). */
  holdSlot?: (work: Promise<unknown>) => void;
  /** Where the core writes the operation's name and type, for the access line. */
  operation: OperationOutcome;
}

/**
 * A `/graphql` request's answer as the operation core makes it, for any host: the host has
 * answered a refused token with its 401 and parsed a JSON body. A GET without a query string
 * gets a hint; anything else is read as GraphQL over HTTP and run, trusted or as text.
 */
export function answerGraphqlCall(core: OperationCore, settings: GraphqlCallSettings, call: GraphqlCall): Promise<Answer> {
  const mediaType = graphqlMediaType(call.header('accept'));
  return core.run(
    {
      surface: { kind: 'graphql', mediaType },
      requestId: call.requestId,
      client: call.client,
      startedAt: call.startedAt,
      authentication: call.authentication,
      holdSlot: call.holdSlot,
      operation: call.operation,
      consistencyToken: call.header('consistency-token'),
    },
    async (context) => {
      if (bareGet(call)) throw badRequest(bareGetHint(settings.developerPages));
      const params = graphqlParams(call);
      return answerGraphql(core, settings, context, {
        params,
        method: call.method,
        mediaType,
        idempotencyKey: call.header('idempotency-key'),
        trusted: settings.trustedDocuments.find(params, call.method),
        executeText: settings.executeText,
      });
    },
  );
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
    const { requestId, startedAt, authentication, holdSlot } = res.locals;
    return answerGraphqlCall(core, options, {
      requestId,
      client: requestClient(req),
      startedAt,
      authentication,
      holdSlot,
      operation,
      method: req.method,
      search: searchOf(req.url),
      body: req.body as unknown,
      header: (name) => req.get(name),
    });
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
function bareGet(call: GraphqlHttpRequest): boolean {
  return (call.method === 'GET' || call.method === 'HEAD') && call.search === '';
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
