import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  Kind,
  specifiedRules,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import { authenticationRefusal } from '../auth/authentication-gate.js';
import type { GraphQLLimits } from '../config.js';
import { beforeExecution, graphqlAnswerHead, headFor } from '../errors/error-head.js';
import { badUserInput } from '../errors/errors.js';
import type { SafeError } from '../errors/safe-errors.js';
import type { RequestContext } from '../graphql/context.js';
import { inputErrors } from '../input/check-input.js';
import { oneMutationField } from './one-mutation-field.js';
import { assertQueryCost } from './query-cost.js';

/**
 * What `/graphql` checks of a document, whichever way it arrives (text through Apollo Server,
 * or a trusted document's id): the validation rules, the checks before execution, and how an
 * answer's errors become its HTTP status. One place, so the two paths cannot drift apart.
 */

/**
 * The limits checked while validating: depth, aliases and directives (GraphQL Armor), one create
 * per mutation. Tokens are counted by graphql-js while parsing; cost once the variables are known.
 * Field suggestions are hidden in production.
 */
export function documentRules(limits: GraphQLLimits, production: boolean): DocumentRules {
  const armor = new ApolloArmor({
    maxDepth: { n: limits.depth },
    maxAliases: { n: limits.aliases },
    maxDirectives: { n: limits.directives },
    // Armor's token check throws from a plugin hook, which Apollo answers with a 500; graphql-js
    // counts tokens while parsing instead (apollo.ts, parseOptions), which is a plain 400.
    maxTokens: { enabled: false },
    // Cost is ours (query-cost.ts): Armor's cost model grows with depth and ignores page sizes.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: production },
  }).protect();
  const extra: ValidationRule[] = [...armor.validationRules, oneMutationField];
  return { extra, all: [...specifiedRules, ...extra], plugins: armor.plugins };
}

export interface DocumentRules {
  /** Apollo Server's `validationRules` (applied after graphql-js's own). */
  extra: ValidationRule[];
  /** The whole set, for documents validated outside Apollo (prepared-document.ts). */
  all: readonly ValidationRule[];
  /** GraphQL Armor's Apollo plugins (field suggestions hidden in production). */
  plugins: unknown[];
}

export interface OperationCheckSettings {
  /** With the developer pages on, an introspection-only query needs no token. */
  anonymousIntrospection: boolean;
  maxCost: number;
}

/**
 * Before any resolver runs, in this order: the 401 when the operation needs a principal (the
 * same rule as REST), the variables (listed with paths, in time linear in their size), the
 * cost limit (which never fails open), then the caller's budgets: the operation's cost from its
 * GraphQL cost points, and its create fields from its creates (429 when over). The operation's
 * name and type are written for the access line first, so even a refused one is named.
 */
export async function checkOperation(
  context: RequestContext,
  request: {
    schema: GraphQLSchema;
    document: DocumentNode;
    operation: OperationDefinitionNode;
    variables?: Record<string, unknown>;
    operationName?: string | null;
  },
  settings: OperationCheckSettings,
): Promise<void> {
  const { schema, document, operation, variables } = request;
  context.operation.operationName = operation.name?.value.slice(0, 100) ?? null;
  context.operation.operationType = operation.operation;
  const refusal = authenticationRefusal(context.authentication, {
    surface: 'graphql',
    anonymousIntrospection: settings.anonymousIntrospection,
    operation,
  });
  if (refusal) throw refusal;
  const errors = await inputErrors(schema, operation, variables);
  if (errors.length > 0) throw beforeExecution(badUserInput(errors));
  const cost = assertQueryCost(schema, document, { variables, operationName: request.operationName }, settings.maxCost);
  if (operation.operation === 'query') context.cost = { limit: settings.maxCost, left: settings.maxCost - cost };
  if (!context.principal) return;
  await context.spend.graphqlCost(cost);
  if (operation.operation === 'mutation') await context.spend.creates(createFields(operation.selectionSet, document));
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

/**
 * The HTTP head of an answer with these (client-safe) errors: one status per code
 * (graphqlAnswerHead), `refused` when `data` must go, the same Retry-After as REST when the
 * database is away; an internal error carries the request id so a report can be matched to the log.
 */
export function errorsOutcome(errors: readonly SafeError[], mediaType: string, requestId: string | undefined) {
  const codes = errors.map((error) => String(error.extensions.code));
  const { status, refused } = graphqlAnswerHead(codes, mediaType);
  const headers = codes.includes('UNAVAILABLE') ? headFor('UNAVAILABLE').headers : {};
  for (const error of errors) {
    if (error.extensions.code === 'INTERNAL_SERVER_ERROR' && requestId) (error.extensions as Record<string, unknown>).requestId = requestId;
  }
  return { status, refused, headers };
}
