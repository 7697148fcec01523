import type { Principal } from '../auth/principal.js';
import type { AuthenticatedContext } from '../graphql/context.js';
import type { CreatedRecord } from '../idempotency/idempotency.js';
import type { JsonSchema } from './openapi-schemas.js';

/** A query parameter a route takes (its check of unknown ones and its OpenAPI `parameters` both read this). */
export interface QueryParameter {
  name: string;
  schema: JsonSchema;
  description?: string;
}

/**
 * One entry of the REST route table (routes.ts): a `/api/v1` route as data. Its GraphQL document
 * (operations.ts) is parsed, validated and compiled once at start-up; a request only supplies
 * variables (path and query parameters, or the JSON body) and the response is the operation's
 * data, reshaped where REST names differ. The entry also describes itself (`doc`, `query`): the
 * OpenAPI document is written from the table (openapi.ts), so a new route is one entry.
 */
/** A REST request as a route reads it: nothing of Express in it. */
export interface RestRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  header(name: string): string | undefined;
}

/** The OpenAPI tags, one per resource (openapi.ts describes each). */
export type RouteTag = 'Organizations' | 'Policies' | 'Billing' | 'Quotes' | 'Events' | 'Webhooks' | 'API keys' | 'Audit log';

/** An OpenAPI response object; openapi-parts.ts `problem` makes the error ones. */
export interface ResponseDoc {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
}

/** A success's answer as OpenAPI shows it. */
export interface AnswerDoc {
  description: string;
  /** The component the body is (a list's items, with `list`); none: no body (a DELETE's 204). */
  schema?: string;
  /** The body is a list page (spec section 10) of `schema` items, under this component's name. */
  list?: string;
  /**
   * `schema` is made here, from this route's document: the object selected at this path below
   * its root field (`[]`: the root field itself). Routes answering the same shape refer to it.
   */
  derive?: readonly string[];
  /** A body that is not JSON (the audit export's NDJSON), as OpenAPI `content`. */
  content?: Record<string, unknown>;
}

/** A create's or a change's body as OpenAPI shows it. */
export interface BodyDoc {
  /** Its component, made from the body's input type (closed when the route's body is: `closedBody`). */
  schema: string;
  description?: string;
  /** JSON Schema keywords the input type cannot say (a create's `oneOf`, a change's `not`). */
  rules?: JsonSchema;
  /** Bodies to show, by name; `typical` first. */
  examples?: Readonly<Record<string, object>>;
}

/**
 * What a route's OpenAPI operation says that the rest of its entry cannot: openapi.ts derives the
 * parameters, headers, schemas, and the errors every route of its kind answers (openapi-parts.ts).
 */
export interface RouteDoc {
  operationId: string;
  summary: string;
  description?: string;
  tag: RouteTag;
  /** The path's `:id` as OpenAPI describes it; default a record's uuid. */
  pathParameter?: JsonSchema;
  answer: AnswerDoc;
  /** This route's own errors, beside (or in place of) those of every route of its kind. */
  errors: Readonly<Record<number, ResponseDoc>>;
}

interface RouteOf<Data, Doc extends RouteDoc> {
  path: string;
  document: string;
  /** The operation's data as the REST body. */
  response: (data: Data) => unknown;
  /** The body carries the record's `version`, sent as `ETag: "<version>"` on a 200 (contract section 15). */
  etag?: boolean;
  /** The query parameters it takes (none by default): any other is 400, listed (contract section 18). */
  query?: readonly QueryParameter[];
  doc: Doc;
}

/**
 * A read: path and query parameters (and, for defaults, the caller's token) become the
 * variables; may throw NOT_FOUND for impossible ids, 400 for bad parameters.
 */
export interface GetRoute<Data = never> extends RouteOf<Data, RouteDoc> {
  /** DELETE routes are built the same way and answer 204 once their document ran without error. */
  method: 'GET' | 'DELETE';
  variables: (request: Pick<RestRequest, 'params' | 'query'>, principal: Principal) => Record<string, unknown>;
}

/**
 * A create (POST) or a change (PATCH): the JSON body becomes the variable `bodyVariable` (mapped
 * onto its input type), or, where the mutation takes its values as arguments rather than one
 * input (`redeliverEvent(id, endpointId)`), the body's fields are the variables `bodyFields`
 * (none: the body is `{}`). Exactly one of the two.
 */
export interface PostRoute<Data = never> extends RouteOf<Data, RouteDoc & { body: BodyDoc }> {
  method: 'POST' | 'PATCH';
  bodyVariable?: string;
  bodyFields?: readonly string[];
  /**
   * The answer of a create that already happened, when reading it back through the schema
   * cannot give it (a webhook endpoint's secret is never readable): the REST body, or null.
   */
  rebuild?: (context: AuthenticatedContext, created: CreatedRecord) => Promise<unknown>;
  /** Its success shows a secret once (an API key): the answer is never kept for an Idempotency-Key retry (operation-core.ts). */
  showsSecretOnce?: boolean;
  /**
   * Body fields refused with a 400 naming them, listed with the body's other errors, where
   * dropping them as unknown (the REST default) would hide a mistake: a quote's `number`.
   */
  refusedFields?: Readonly<Record<string, string>>;
  /**
   * Unknown body fields are 400 (contract section 18: policy bodies, and an organization's change),
   * each listed with a "did you mean" for a field of the request within two edits, at any depth
   * but inside an address, which keeps extra properties. Without it they are dropped
   * (organization creates: the interface document allows extra fields). Its OpenAPI schema is
   * closed (`additionalProperties: false`) exactly when this is set.
   */
  closedBody?: boolean;
  /** Variables from the path (a policy's number), besides the body's. */
  pathVariables?: (params: RestRequest['params']) => Record<string, unknown>;
  /** Variables from the request's headers (a change's If-Match); may throw its error. */
  headerVariables?: (request: Pick<RestRequest, 'header'>) => Record<string, unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- routes of different Data in one list: any stands for "some Data", each entry is checked where it is built.
export type RestRoute = GetRoute<any> | PostRoute<any>;

/**
 * A route served by a handler of its own rather than a document (the audit export, a stream),
 * described like the table's entries: its scopes are declared, as no document declares them.
 */
export interface PlainRoute {
  method: 'GET';
  path: string;
  query: readonly QueryParameter[];
  scopes: readonly string[];
  doc: RouteDoc;
}

export const get = <Data>(route: Omit<GetRoute<Data>, 'method'>): GetRoute<Data> => ({ method: 'GET', ...route });
export const del = <Data>(route: Omit<GetRoute<Data>, 'method' | 'response'>): GetRoute<Data> => ({
  method: 'DELETE',
  response: () => null,
  ...route,
});
export const post = <Data>(route: Omit<PostRoute<Data>, 'method'>): PostRoute<Data> => ({ method: 'POST', ...route });
export const patch = <Data>(route: Omit<PostRoute<Data>, 'method'>): PostRoute<Data> => ({ method: 'PATCH', ...route });
