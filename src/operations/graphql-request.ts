import { GraphQLError } from 'graphql';
import { ServiceError } from '../errors/errors.js';

/** A `/graphql` request as the host hands it over: nothing of Express or Apollo. */
export interface GraphqlHttpRequest {
  /** Upper case: `GET`, `POST`, ... */
  method: string;
  /** The query string with its `?`, or empty. */
  search: string;
  /** The parsed JSON body of a POST (undefined when there was none, or not JSON). */
  body: unknown;
  header(name: string): string | undefined;
}

/** What a GraphQL-over-HTTP request asks for, checked for shape. */
export interface GraphqlParams {
  query?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  /** A trusted document's id (`documentId`), as sent: trusted-documents.ts judges it. */
  documentId?: unknown;
}

/**
 * The GraphQL-over-HTTP parameters of a request, once for every document (a trusted one and a
 * text Apollo Server runs), with Apollo Server 5's own rules and words (runHttpQuery.ts): GET
 * and POST only, a JSON object body, `variables` and `extensions` objects (JSON text in a GET's
 * query string), each GET parameter at most once, no batches; and first its CSRF rule.
 */
export function graphqlParams(request: GraphqlHttpRequest): GraphqlParams {
  assertPreflighted(request);
  if (request.method === 'POST') return postParams(request.body);
  if (request.method === 'GET') return getParams(request);
  throw new ServiceError('METHOD_NOT_ALLOWED', 'Apollo Server supports only GET/POST requests.', {}, { Allow: 'GET, POST' });
}

function postParams(body: unknown): GraphqlParams {
  if (Array.isArray(body)) throw badRequest('Operation batching disabled.');
  if (!isRecord(body) || Object.keys(body).length === 0) {
    throw badRequest('POST body missing, invalid Content-Type, or JSON object has no keys.');
  }
  const { query, variables, extensions, operationName, documentId } = body;
  if (query && typeof query !== 'string') {
    throw badRequest(
      isRecord(query) && query.kind === 'Document'
        ? "GraphQL queries must be strings. It looks like you're sending the internal graphql-js representation of a parsed query " +
            'in your request instead of a request in the GraphQL query language. You can convert an AST to a string using the ' +
            '`print` function from `graphql`, or use a client like `apollo-client` which converts the internal representation to a string for you.'
        : 'GraphQL queries must be strings.',
    );
  }
  if (typeof variables === 'string') {
    throw badRequest('`variables` in a POST body should be provided as an object, not a recursively JSON-encoded string.');
  }
  if (typeof extensions === 'string') {
    throw badRequest('`extensions` in a POST body should be provided as an object, not a recursively JSON-encoded string.');
  }
  if (extensions !== undefined && extensions !== null && !isRecord(extensions)) {
    throw badRequest('`extensions` in a POST body must be an object if provided.');
  }
  if (variables !== undefined && variables !== null && !isRecord(variables)) {
    throw badRequest('`variables` in a POST body must be an object if provided.');
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw badRequest('`operationName` in a POST body must be a string if provided.');
  }
  return {
    query: typeof query === 'string' ? query : undefined,
    operationName: typeof operationName === 'string' ? operationName : undefined,
    variables: isRecord(variables) ? variables : undefined,
    extensions: isRecord(extensions) ? extensions : undefined,
    documentId,
  };
}

function getParams(request: GraphqlHttpRequest): GraphqlParams {
  const contentType = request.header('content-type');
  if (contentType !== undefined && contentType.split(';')[0].trim().toLowerCase() !== 'application/json') {
    throw new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'GET requests may not have a content-type header other than application/json.');
  }
  const search = new URLSearchParams(request.search);
  return {
    query: once(search, 'query'),
    operationName: once(search, 'operationName'),
    variables: jsonOnce(search, 'variables'),
    extensions: jsonOnce(search, 'extensions'),
    documentId: once(search, 'documentId'),
  };
}

function once(search: URLSearchParams, name: string): string | undefined {
  const values = search.getAll(name);
  if (values.length > 1) throw badRequest(`The '${name}' search parameter may only be specified once.`);
  return values[0];
}

function jsonOnce(search: URLSearchParams, name: string): Record<string, unknown> | undefined {
  const value = once(search, name);
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw badRequest(`The ${name} search parameter contains invalid JSON.`);
  }
  if (!isRecord(parsed)) throw badRequest(`The ${name} search parameter should contain a JSON-encoded object.`);
  return parsed;
}

/** Content types a browser sends cross-origin without a preflight (Apollo Server's csrfPrevention). */
const SIMPLE_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
const PREFLIGHT_HEADERS = ['x-apollo-operation-name', 'apollo-require-preflight'];

/**
 * Apollo Server's CSRF prevention: a request must carry a content type a browser would preflight,
 * or one of Apollo's headers; otherwise a page on any origin could have a browser send it with
 * the user's cookies or network position (a GET that reads, or a form that writes).
 */
function assertPreflighted(request: GraphqlHttpRequest): void {
  const contentType = request.header('content-type');
  if (contentType !== undefined && !SIMPLE_CONTENT_TYPES.includes(contentType.split(';')[0].trim().toLowerCase())) return;
  if (PREFLIGHT_HEADERS.some((name) => (request.header(name) ?? '').length > 0)) return;
  throw badRequest(
    `This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Please either specify a 'content-type' header (with a type that is not one of ${SIMPLE_CONTENT_TYPES.join(', ')}) or provide a non-empty value for one of the following headers: ${PREFLIGHT_HEADERS.join(', ')}`,
  );
}

/** A request that is not GraphQL over HTTP at all: 400 whatever the client accepts. */
export function badRequest(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
