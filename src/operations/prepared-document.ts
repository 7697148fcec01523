import {
  getOperationAST,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/**
 * A GraphQL document known before any request asks for it: a REST route's (rest/operations.ts)
 * or a trusted document of the frontends' manifest (trusted-documents.ts). It is parsed,
 * validated and compiled with graphql-jit once, at start-up; a request only brings variables,
 * and runs the same resolvers as any other document, with less work per request.
 */
export interface PreparedDocument {
  /** The text as written (a request sending exactly this text runs the prepared document). */
  text: string;
  parsed: DocumentNode;
  operation: OperationDefinitionNode;
  compiled: CompiledQuery;
}

/**
 * Throws, naming `label`, when the document does not parse or validate (with `rules`, the same
 * rules `/graphql` applies to any document), or does not hold exactly one operation: a
 * document that cannot run should stop a deployment, not wait for its first request.
 */
export function prepareDocument(schema: GraphQLSchema, text: string, label: string, rules?: readonly ValidationRule[]): PreparedDocument {
  let parsed: DocumentNode;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new Error(`${label} does not parse: ${(error as Error).message}`, { cause: error });
  }
  const problems = validate(schema, parsed, rules);
  if (problems.length > 0) throw new Error(`${label} is not valid against the schema: ${problems[0].message}`);
  const operation = getOperationAST(parsed);
  if (!operation) throw new Error(`${label} must hold exactly one operation`);
  const compiled = compileQuery(schema, parsed);
  if (!isCompiledQuery(compiled)) throw new Error(`${label} does not compile: ${compiled.errors?.[0]?.message}`);
  return { text, parsed, operation, compiled };
}
