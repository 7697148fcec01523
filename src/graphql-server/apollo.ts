import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { Kind, type DocumentNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { GraphQLLimits } from '../config.js';
import { authenticationRefusal } from '../auth/authentication-gate.js';
import type { RequestContext } from '../graphql/context.js';
import { beforeExecution, graphqlAnswerHead, graphqlMediaType, headFor } from '../errors/error-head.js';
import { badUserInput } from '../errors/errors.js';
import { asGraphQLError, safeError } from '../errors/safe-errors.js';
import { inputErrors } from '../input/check-input.js';
import { assertQueryCost } from './query-cost.js';
import { oneMutationField } from './one-mutation-field.js';
import { EXAMPLE_HEADERS, EXAMPLE_OPERATION } from '../http/developer-pages.js';

export interface ApolloOptions {
  production: boolean;
  /** Sandbox at GET /graphql in a browser (spec section 9). */
  developerPages: boolean;
  introspection: boolean;
  limits: GraphQLLimits;
}

/**
 * Apollo Server for `/graphql`: Sandbox with the developer pages (outside production by default), no stack traces ever, and limits
 * checked before any resolver runs: tokens while parsing (graphql-js), depth, aliases and
 * directives while validating (GraphQL Armor), cost once the operation is known (query-cost.ts).
 * Field suggestions are hidden in production.
 */
export function createApolloServer(schema: GraphQLSchema, options: ApolloOptions): ApolloServer<RequestContext> {
  const { production, limits } = options;
  const armor = new ApolloArmor({
    maxDepth: { n: limits.depth },
    maxAliases: { n: limits.aliases },
    maxDirectives: { n: limits.directives },
    // Armor's token check throws from a plugin hook, which Apollo answers with a 500; graphql-js
    // counts tokens while parsing instead (parseOptions below), which is a plain 400.
    maxTokens: { enabled: false },
    // Cost is ours (query-cost.ts): Armor's cost model grows with depth and ignores page sizes.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: production },
  }).protect();
  return new ApolloServer<RequestContext>({
    schema,
    validationRules: [...armor.validationRules, oneMutationField],
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
            headers: EXAMPLE_HEADERS,
            includeCookies: false,
            footer: false,
          })
        : ApolloServerPluginLandingPageDisabled(),
      // No cache hints are used (responses are per caller); computing them visits every field.
      ApolloServerPluginCacheControlDisabled(),
      // Armor ships CommonJS typings of Apollo; the plugins are plain objects either way.
      ...(armor.plugins as unknown as Array<ApolloServerPlugin<RequestContext>>),
      requestChecks(options.developerPages, limits.cost),
    ],
  });
}

/**
 * Before any resolver runs, in this order: the 401 when the operation needs a principal (the
 * same rule as REST), the variables (listed with paths, in time linear in their size), the
 * cost limit (which never fails open), then the caller's budgets: the operation's cost from its
 * GraphQL cost points, and its create fields from its creates (429 when over). Unexpected errors
 * are logged once, here, with the request id; the client sees only what `safeError` lets through.
 */
function requestChecks(anonymousIntrospection: boolean, maxCost: number): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, operation, request, schema, document }) {
          if (!operation) return; // Apollo answers a missing or ambiguous operation itself
          contextValue.operation.operationName = operation.name?.value.slice(0, 100) ?? null;
          contextValue.operation.operationType = operation.operation;
          const refusal = authenticationRefusal({ principal: contextValue.principal, failure: contextValue.authFailure }, { surface: 'graphql', anonymousIntrospection, operation });
          if (refusal) throw refusal;
          const errors = await inputErrors(schema, operation, request.variables);
          if (errors.length > 0) {
            throw beforeExecution(badUserInput(errors));
          }
          const cost = assertQueryCost(schema, document, request, maxCost);
          if (!contextValue.principal) return;
          await contextValue.spend.graphqlCost(cost);
          if (operation.operation === 'mutation') await contextValue.spend.creates(createFields(operation.selectionSet, document));
        },
        async willSendResponse({ contextValue, response, request }) {
          if (response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          const errors = (result.errors ?? []) as ReadonlyArray<{ extensions?: Record<string, unknown> }>;
          if (errors.length === 0) return;
          // One status per code, whichever check raised it (error-head.ts): a refusal has no data.
          const codes = errors.map((error) => String(error.extensions?.code));
          const { status, refused } = graphqlAnswerHead(codes, graphqlMediaType(request.http?.headers.get('accept')));
          response.http.status = status;
          if (refused) delete (result as { data?: unknown }).data;
          // The same Retry-After as REST when the database is away.
          if (codes.includes('UNAVAILABLE')) {
            for (const [name, value] of Object.entries(headFor('UNAVAILABLE').headers)) response.http.headers.set(name, value);
          }
          for (const error of errors) {
            if (error.extensions?.code === 'INTERNAL_SERVER_ERROR' && contextValue?.requestId) {
              error.extensions.requestId = contextValue.requestId;
            }
          }
        },
        async didEncounterErrors({ contextValue, errors }) {
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

/** How many create fields a mutation runs, through fragments at its root too. */
function createFields(selectionSet: SelectionSetNode, document: DocumentNode): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += selection.name.value.startsWith('create') ? 1 : 0;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += createFields(selection.selectionSet, document);
    else {
      const fragment = document.definitions.find(
        (definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) count += createFields(fragment.selectionSet, document);
    }
  }
  return count;
}
