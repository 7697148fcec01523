import { Kind, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { authenticationRefusal } from '../auth/authenticate.js';
import { badUserInput } from '../errors/errors.js';
import type { RequestContext } from '../graphql/context.js';
import { answerMeter, queryMeter } from '../graphql/cost-meter.js';
import { createsSpent } from '../graphql/write.js';
import { inputErrors } from '../input/check-input.js';
import { assertQueryCost } from './query-cost.js';

/**
 * What `/graphql` checks of an operation before it runs, whichever way it arrives (text through
 * Apollo Server's plugin, or a trusted document): one place, so the two paths cannot drift apart.
 */

export interface OperationCheckSettings {
  /** With the developer pages on, an introspection-only query needs no token. */
  anonymousIntrospection: boolean;
  maxCost: number;
}

/**
 * Before any resolver runs, in this order: the 401 when the operation needs a principal (the
 * same rule as REST), the variables (listed with paths, in time linear in their size), the
 * cost limit (which never fails open), then the caller's budgets: the operation's cost from its
 * GraphQL cost points, and its writes from the budgets they declare (graphql/write.ts; 429 when over). The operation's
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
  // A query only reads: its statements may go to a replica (contract section 17); a document
  // with a mutation in it never does, whichever of its operations runs.
  if (
    operation.operation === 'query' &&
    !document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation === 'mutation')
  ) {
    context.readsOnly();
  }
  const refusal = authenticationRefusal(context.authentication, {
    surface: 'graphql',
    anonymousIntrospection: settings.anonymousIntrospection,
    operation,
  });
  if (refusal) throw refusal;
  const errors = await inputErrors(schema, operation, variables);
  if (errors.length > 0) throw badUserInput(errors);
  const cost = assertQueryCost(schema, document, { variables, operationName: request.operationName }, settings.maxCost);
  // A query over its limit while reading is refused; a mutation's answer, read after its write, only has its lists cut short.
  context.cost = operation.operation === 'query' ? queryMeter(settings.maxCost, cost) : answerMeter(settings.maxCost, cost);
  if (!context.principal) return;
  await context.spend.graphqlCost(cost);
  if (operation.operation === 'mutation') await context.spend.creates(createsSpent(schema, operation.selectionSet, document));
}
