import { HeaderMap, type ApolloServer } from '@apollo/server';
import type { NextFunction, Request, Response } from 'express';
import { getOperationAST, parse, print, type DocumentNode } from 'graphql';
import type { ContextFactory, RequestContext } from '../graphql/context.js';
import { ServiceError } from '../graphql/errors.js';
import { safeError, statusOf } from '../graphql/safe-errors.js';
import { assertIdempotencyKey, runIdempotently, type StoredResponse } from './idempotency.js';

/**
 * `Idempotency-Key` on `/graphql` mutations (the create mutations, contract section 7). A
 * mutation with the header runs here, through Apollo's own request pipeline, inside the
 * key's transaction; anything else goes on to the plain Apollo middleware.
 */
export function graphqlIdempotency(apollo: ApolloServer<RequestContext>, createContext: ContextFactory, retentionSeconds: number) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.get('idempotency-key');
    const document = key !== undefined && req.method === 'POST' ? parsedMutation(req.body) : null;
    if (!document) return next();
    try {
      const context = await createContext({ requestId: res.locals.requestId, authorization: req.get('authorization') });
      // Without a principal there is no scope for the key: Apollo answers the 401.
      if (!context.principal) return next();
      res.locals.sub = context.principal.sub;
      assertIdempotencyKey(key!);
      const { response, replayed } = await runIdempotently(
        context.em,
        { principal: context.principal, operation: `graphql ${rootFields(document)}`, key: key!, request: normalised(req.body, document) },
        retentionSeconds,
        () => executeThroughApollo(apollo, req, context),
        (stored) => failedOnTheServer(stored.body),
      );
      if (replayed) res.set('Idempotent-Replayed', 'true');
      res.status(response.status).type(response.contentType).send(response.body);
    } catch (error) {
      if (!(error instanceof ServiceError)) return next(error);
      const { safe } = safeError(error);
      res.status(statusOf(error.code)).json({ errors: [safe] });
    }
  };
}

function parsedMutation(body: unknown): DocumentNode | null {
  const { query, operationName } = (body ?? {}) as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return null;
  try {
    const document = parse(query);
    const operation = getOperationAST(document, typeof operationName === 'string' ? operationName : undefined);
    return operation?.operation === 'mutation' ? document : null;
  } catch {
    return null; // Apollo reports the syntax error
  }
}

function rootFields(document: DocumentNode): string {
  const operation = getOperationAST(document)!;
  return operation.selectionSet.selections
    .map((selection) => (selection.kind === 'Field' ? selection.name.value : '…'))
    .sort()
    .join(',');
}

/** The request as compared between retries: the query's formatting does not matter. */
function normalised(body: { variables?: unknown; operationName?: unknown }, document: DocumentNode) {
  return { query: print(document), variables: body.variables ?? {}, operationName: body.operationName ?? null };
}

async function executeThroughApollo(apollo: ApolloServer<RequestContext>, req: Request, context: RequestContext): Promise<StoredResponse> {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  const result = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: 'POST', headers, search: '', body: req.body },
    context: async () => context,
  });
  let body = '';
  if (result.body.kind === 'complete') body = result.body.string;
  else for await (const chunk of result.body.asyncIterator) body += chunk;
  return {
    status: result.status ?? 200,
    contentType: result.headers.get('content-type') ?? 'application/json',
    body,
  };
}

/** A GraphQL 200 can still carry a server-side failure; such a result is not kept. */
function failedOnTheServer(body: string): boolean {
  try {
    const { errors } = JSON.parse(body) as { errors?: Array<{ extensions?: { code?: string } }> };
    return (errors ?? []).some((error) => ['INTERNAL_SERVER_ERROR', 'UNAVAILABLE'].includes(error.extensions?.code ?? ''));
  } catch {
    return true;
  }
}
