import { ApolloServer, HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLLimits } from '../config.js';
import type { RequestContext } from '../graphql/context.js';
import type { Answer } from '../errors/answer.js';
import { asGraphQLError, safeError } from '../errors/safe-errors.js';
import { checkOperation, type OperationCheckSettings } from '../operations/operation-checks.js';
import type { TextExecutor } from '../operations/graphql-operation.js';
import type { DocumentRules } from './document-rules.js';
import { EXAMPLE_HEADERS, EXAMPLE_OPERATION, EXAMPLE_VARIABLES } from '../http/developer-pages.js';
import { apolloOperationFailed, inApolloOperationSpan, nameApolloOperation } from '../observability/operation-span.js';

export interface ApolloOptions {
  /** Sandbox at GET /graphql in a browser (spec section 9). */
  developerPages: boolean;
  introspection: boolean;
  limits: GraphQLLimits;
  /** The validation rules and checks every document meets, trusted documents too (operation-checks.ts). */
  rules: DocumentRules;
  checks: OperationCheckSettings;
}

/**
 * Apollo Server for `/graphql`: Sandbox with the developer pages (outside production by default), no stack traces ever, and limits
 * checked before any resolver runs: tokens while parsing (graphql-js), depth, aliases and
 * directives while validating, cost once the operation is known (operation-checks.ts).
 */
export function createApolloServer(schema: GraphQLSchema, options: ApolloOptions): ApolloServer<RequestContext> {
  const { limits, rules } = options;
  return new ApolloServer<RequestContext>({
    schema,
    validationRules: rules.extra,
    parseOptions: { maxTokens: limits.tokens },
    allowBatchedHttpRequests: false,
    // Automatic persisted queries: no client of this API uses them, and each one is a cache
    // entry any caller can make (security review, info notes).
    persistedQueries: false,
    introspection: options.introspection,
    includeStacktraceInErrorResponses: false,
    csrfPrevention: true,
    // main.ts owns shutdown: Apollo's own signal handlers would race it and re-raise the signal.
    stopOnTerminationSignals: false,
    // Apollo formats errors only in what it answers itself (the landing page's failures): the
    // operation core makes every other answer from the errors as raised.
    formatError: (_formatted, error) => safeError(asGraphQLError(error)).safe,
    stringifyResult: (result) => JSON.stringify(result),
    plugins: [
      options.developerPages
        ? ApolloServerPluginLandingPageLocalDefault({
            embed: { runTelemetry: false, endpointIsEditable: false },
            document: EXAMPLE_OPERATION,
            variables: EXAMPLE_VARIABLES,
            headers: EXAMPLE_HEADERS,
            includeCookies: false,
            footer: false,
          })
        : ApolloServerPluginLandingPageDisabled(),
      // No cache hints are used (responses are per caller); computing them visits every field.
      ApolloServerPluginCacheControlDisabled(),
      // Armor ships CommonJS typings of Apollo; the plugins are plain objects either way.
      ...(rules.plugins as unknown as Array<ApolloServerPlugin<RequestContext>>),
      requestChecks(options.checks),
    ],
  });
}

/**
 * Documents sent as text, run by Apollo Server's request pipeline (its document cache, parse with
 * the token limit, validation with the rules, the plugins below, execution) through
 * `executeOperation`: the host has read the request as GraphQL over HTTP already (the operation
 * core's graphql-request.ts, with Apollo's own rules), and the core makes the answer from the
 * errors as raised, which the plugin hands it. Apollo's formatting of them is not used.
 */
export function textExecutor(apollo: ApolloServer<RequestContext>): TextExecutor {
  return async (params, method, context) => {
    const response = await inApolloOperationSpan(() =>
      apollo.executeOperation(
        {
          query: params.query,
          operationName: params.operationName,
          variables: params.variables,
          extensions: params.extensions,
          // Apollo refuses a mutation sent by GET by this method.
          http: { method, headers: new HeaderMap(), search: '', body: undefined },
        },
        { contextValue: context },
      ),
    );
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not supported');
    const { data, errors } = response.body.singleResult;
    // Loud, never an answer without its errors: every error Apollo answers passes didEncounterErrors.
    if (errors?.length && context.errorsMet.length === 0) throw new Error('Apollo Server answered errors its plugin did not record');
    return { data, errors: context.errorsMet, headers: Object.fromEntries(response.http.headers) };
  };
}

/** Apollo Sandbox, as Apollo Server serves it to a browser's GET of `/graphql` (the developer pages). */
export function landingPage(apollo: ApolloServer<RequestContext>) {
  return async (req: Request): Promise<Answer> => {
    const headers = new HeaderMap([['accept', req.get('accept') ?? '']]);
    const result = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'GET', headers, search: '', body: undefined },
      context: () => Promise.reject(new Error('the landing page needs no context')),
    });
    if (result.body.kind !== 'complete') throw new Error('Apollo Server answered the landing page in chunks');
    return {
      status: result.status ?? 200,
      contentType: result.headers.get('content-type') ?? 'text/html',
      body: result.body.string,
      headers: {},
    };
  };
}

/**
 * The operation core's checks (operation-checks.ts) once Apollo knows the operation, and the
 * errors as raised, recorded for the core's answer (Apollo's copy of the context shares the list).
 */
function requestChecks(checks: OperationCheckSettings): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, request, schema, document }) {
          if (!operation) return; // Apollo answers a missing or ambiguous operation itself
          nameApolloOperation(operation);
          await checkOperation(
            contextValue,
            { schema, document, operation, variables: request.variables, operationName: request.operationName },
            checks,
          );
        },
        async didEncounterErrors({ contextValue, errors }) {
          apolloOperationFailed();
          contextValue.errorsMet.push(...errors);
        },
      };
    },
  };
}
