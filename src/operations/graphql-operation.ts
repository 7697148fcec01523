import {
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  print,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { graphqlAnswer, type Answer } from '../errors/answer.js';
import { badUserInput } from '../errors/errors.js';
import type { RequestContext } from '../graphql/context.js';
import { readBackOf, writtenRecord } from '../graphql/write.js';
import { guardedWrite, readBackDocument } from '../idempotency/read-back.js';
import { inputErrors } from '../input/check-input.js';
import { inOperationSpan } from '../observability/operation-span.js';
import type { GraphqlParams } from './graphql-request.js';
import type { OperationCore } from './operation-core.js';
import { checkOperation, type OperationCheckSettings } from './operation-checks.js';
import type { PreparedDocument } from './prepared-document.js';
import { queryCost } from './query-cost.js';

/** A text document's result as its executor (Apollo Server, in the host) gives it: the errors as raised, not yet made safe. */
export interface TextResult {
  data?: unknown;
  errors?: readonly GraphQLError[];
  headers?: Readonly<Record<string, string>>;
}

/** Runs a document sent as text, through the checks of operation-checks.ts: the `/graphql` host's Apollo Server. */
export type TextExecutor = (params: GraphqlParams, method: string, context: RequestContext) => Promise<TextResult>;

/** One `/graphql` operation, as its host has read it. */
export interface GraphqlOperation {
  params: GraphqlParams;
  method: string;
  /** The answer's media type, chosen from the request's Accept. */
  mediaType: string;
  idempotencyKey?: string;
  /** A trusted document named by the request (trusted-documents.ts), or null: the text is run by `executeText`. */
  trusted: PreparedDocument | null;
  executeText: TextExecutor;
}

export interface GraphqlSettings {
  schema: GraphQLSchema;
  checks: OperationCheckSettings;
}

/**
 * A `/graphql` operation's answer: a trusted document runs prepared (below), any other through
 * the host's executor; a create mutation sent with an Idempotency-Key, either way, through the key.
 */
export function answerGraphql(
  core: OperationCore,
  settings: GraphqlSettings,
  context: RequestContext,
  run: GraphqlOperation,
): Promise<Answer> {
  const once = run.trusted
    ? () => executeTrusted(settings, context, run.trusted as PreparedDocument, run)
    : async () => {
        const result = await run.executeText(run.params, run.method, context);
        const answer = graphqlAnswer(result, run.mediaType, context);
        return result.headers ? { ...answer, headers: { ...result.headers, ...answer.headers } } : answer;
      };
  const key = run.method === 'POST' ? run.idempotencyKey : undefined;
  if (key === undefined || !context.principal) return once();
  const mutation = run.trusted ? preparedMutation(run.trusted) : parsedMutation(run.params);
  if (!mutation) return once();
  // A replay runs nothing, and is still a write's answer (its Consistency-Token).
  context.operation.operationType ??= 'mutation';
  return core.idempotently(context, key, async () => {
    const guarded = guardedWrite(mutation.operation, readBackOf(settings.schema));
    if (!guarded) {
      throw badUserInput([{ path: 'Idempotency-Key', message: 'can only be sent with a mutation of exactly one create field' }]);
    }
    const { variables = {}, operationName } = run.params;
    // As at Stripe, variables that fail their checks are answered before the key is claimed
    // (the operation's own checks look at them again, unchanged).
    const invalid = await inputErrors(settings.schema, mutation.operation, variables);
    if (invalid.length > 0) throw badUserInput(invalid);
    const name = guarded.field.name.value;
    const record = writtenRecord(settings.schema, name, { node: guarded.field, variables });
    return {
      // The field and the record it writes to, as REST's route and the record in its path (docs/decisions.md, issue 37).
      operation: Object.keys(record).length === 0 ? `graphql ${name}` : `graphql ${name} ${JSON.stringify(record)}`,
      // The request as compared between retries: the query's formatting does not matter.
      request: { query: print(mutation.document), variables, operationName: operationName ?? null },
      execute: once,
      rebuild: async (created) => {
        const readBack = readBackDocument(mutation.document, mutation.operation, guarded, created);
        // A rebuilt answer runs its selection again: it spends the caller's cost budget like any query.
        await context.spend.graphqlCost(queryCost(settings.schema, readBack, { variables }));
        const result = await execute({ schema: settings.schema, document: readBack, contextValue: context, variableValues: variables });
        return graphqlAnswer(result, run.mediaType, context);
      },
    };
  });
}

/**
 * A trusted document: the checks Apollo Server's plugin makes of a text (operation-checks.ts),
 * then the compiled document; Apollo's pipeline (its document cache, hooks and formatting) is
 * skipped, which is most of what a GraphQL request costs beyond REST.
 */
async function executeTrusted(
  settings: GraphqlSettings,
  context: RequestContext,
  trusted: PreparedDocument,
  run: GraphqlOperation,
): Promise<Answer> {
  const { operation, parsed } = trusted;
  if (run.method !== 'POST' && operation.operation === 'mutation') {
    // Apollo Server 5's own words for a text document (400, as GraphQL over HTTP allows).
    throw new GraphQLError('GET requests only support query operations, not mutation operations', { extensions: { code: 'BAD_REQUEST' } });
  }
  const { operationName, variables = {} } = run.params;
  if (operationName !== undefined && operationName !== (operation.name?.value ?? '')) {
    throw new GraphQLError('The trusted document holds no operation of this name.', {
      extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
    });
  }
  await checkOperation(
    context,
    { schema: settings.schema, document: parsed, operation, variables, operationName: operation.name?.value },
    settings.checks,
  );
  const result = await inOperationSpan(operation, async () => trusted.compiled.query(undefined, context, variables));
  return graphqlAnswer(result, run.mediaType, context);
}

interface Mutation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

function preparedMutation(trusted: PreparedDocument): Mutation | null {
  return trusted.operation.operation === 'mutation' ? { document: trusted.parsed, operation: trusted.operation } : null;
}

/** The mutation a text asks for, when it is one; anything else goes to the executor as it is. */
function parsedMutation(params: GraphqlParams): Mutation | null {
  if (params.query === undefined) return null;
  let document: DocumentNode;
  try {
    document = parse(params.query);
  } catch {
    return null; // the executor reports the syntax error
  }
  // The operation the request names: a document may hold several.
  const operation = getOperationAST(document, params.operationName);
  return operation?.operation === 'mutation' ? { document, operation } : null;
}
