import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLLimits } from '../config.js';
import type { RequestContext } from '../graphql/context.js';
import { graphqlMediaType } from '../errors/error-head.js';
import { asGraphQLError, safeError, type SafeError } from '../errors/safe-errors.js';
import { checkOperation, errorsOutcome, type DocumentRules, type OperationCheckSettings } from './operation-checks.js';
import { EXAMPLE_HEADERS, EXAMPLE_OPERATION, EXAMPLE_VARIABLES } from '../http/developer-pages.js';
import { apolloOperationFailed, nameApolloOperation } from '../observability/operation-span.js';

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
    formatError: (_formatted, error) => safeError(asGraphQLError(error)).safe,
    // Compact JSON: Apollo indents responses by default, which costs time and bytes on every answer.
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
 * The checks of operation-checks.ts once Apollo knows the operation, and the status rule on
 * the way out. Unexpected errors are logged once, here, with the request id; the client sees
 * only what `safeError` lets through.
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
        async willSendResponse({ contextValue, response, request }) {
          if (response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          if (!result.errors?.length) return;
          // One status per code, whichever check raised it (error-head.ts): a refusal has no data.
          const outcome = errorsOutcome(
            result.errors as SafeError[],
            graphqlMediaType(request.http?.headers.get('accept')),
            contextValue?.requestId,
          );
          response.http.status = outcome.status;
          if (outcome.refused) delete (result as { data?: unknown }).data;
          for (const [name, value] of Object.entries(outcome.headers)) response.http.headers.set(name, value);
        },
        async didEncounterErrors({ contextValue, errors }) {
          apolloOperationFailed();
          for (const error of errors) {
            if (safeError(error).unexpected) {
              contextValue.logger.error({ err: error.originalError ?? error }, 'unexpected error in a GraphQL request');
            }
          }
        },
      };
    },
  };
}
