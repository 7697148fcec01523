import {
  execute,
  GraphQLInputObjectType,
  isInputObjectType,
  Kind,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { RequestAuthentication } from '../auth/authenticate.js';
import { documentScopes, scopeRefusal } from '../auth/scope-gate.js';
import { errorAnswer, jsonAnswer, REST, type Answer } from '../errors/answer.js';
import { badUserInput, MAX_REPORTED_ERRORS, notFound, type FieldError } from '../errors/errors.js';
import { assertAuthenticated, type AuthenticatedContext, type RequestClient, type RequestContext } from '../graphql/context.js';
import type { CreatedRecord } from '../idempotency/idempotency.js';
import { createsSpent, readBackOf, writtenRecord } from '../graphql/write.js';
import { guardedWrite, readBackDocument, type GuardedWrite } from '../idempotency/read-back.js';
import { inputErrors } from '../input/check-input.js';
import { childNodes, inputNode, isPlainObject, variableTypes, type InputNode } from '../input/walk-input.js';
import { inOperationSpan } from '../observability/operation-span.js';
import type { OperationCore } from '../operations/operation-core.js';
import { prepareDocument, type PreparedDocument } from '../operations/prepared-document.js';
import { closestName } from '../values/edit-distance.js';
import { inputFromBody } from './input-from-body.js';
import { unknownParameterErrors } from './query-parameters.js';
import type { GetRoute, PostRoute, RestRequest, RestRoute } from './route-entry.js';

/**
 * What a route's document writes, from its mutation's declaration (graphql/write.ts): the
 * creates it spends (a route spends what its mutation spends on `/graphql`, whatever its HTTP
 * method), the mutation field, and the read that rebuilds its answer for an Idempotency-Key.
 */
interface RouteWrite {
  /** What an API key needs to call the route (auth/scope-gate.ts), checked before its body. */
  scopes: ReturnType<typeof documentScopes>;
  creates: number;
  writeField: string | null;
  guarded: GuardedWrite | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of routes of different Data: any stands for "some Data", checked per route in routes.ts.
export type PreparedRoute = ((GetRoute<any> & PreparedDocument) | (PostRoute<any> & PreparedDocument & { bodyType: GraphQLInputType })) &
  RouteWrite;

/** A create (POST) or a change (PATCH): its body is a variable. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- "a PostRoute of some Data", as RestRoute.
export function hasBody<R extends RestRoute>(route: R): route is Extract<R, PostRoute<any>> {
  return route.method === 'POST' || route.method === 'PATCH';
}

/** The route's document parsed, validated and compiled once, at start-up, with its body's input type. */
export function prepareRoute(schema: GraphQLSchema, route: RestRoute): PreparedRoute {
  const prepared = prepareDocument(schema, route.document, `The REST document for ${route.method} ${route.path}`);
  const write = routeWrite(schema, prepared);
  if (!hasBody(route)) return { ...route, ...prepared, ...write };
  return { ...route, ...prepared, ...write, bodyType: bodyTypeOf(schema, route, prepared.operation) };
}

/**
 * The input type a route's body is read as: its body variable's, or, for a route whose body's
 * fields are variables, an input object of those variables' types (named after the operation;
 * never part of the schema), so that unknown fields, coercion and OpenAPI read it alike.
 */
export function bodyTypeOf(schema: GraphQLSchema, route: PostRoute<unknown>, operation: OperationDefinitionNode): GraphQLInputType {
  const where = `REST document for ${route.method} ${route.path}`;
  const types = new Map(variableTypes(schema, operation).map((variable) => [variable.name, variable.type]));
  if ((route.bodyVariable === undefined) === (route.bodyFields === undefined)) throw new Error(`${where}: give bodyVariable or bodyFields`);
  if (route.bodyVariable !== undefined) {
    const type = types.get(route.bodyVariable);
    if (!type) throw new Error(`${where} declares no $${route.bodyVariable}`);
    return type;
  }
  const fields = route.bodyFields!.map((name) => {
    const type = types.get(name);
    if (!type) throw new Error(`${where} declares no $${name}`);
    return [name, { type }] as const;
  });
  return new GraphQLInputObjectType({ name: `${operation.name?.value ?? 'Rest'}Body`, fields: Object.fromEntries(fields) });
}

function routeWrite(schema: GraphQLSchema, { operation, parsed }: PreparedDocument): RouteWrite {
  const scopes = documentScopes(schema, parsed);
  if (operation.operation !== 'mutation') return { scopes, creates: 0, writeField: null, guarded: null };
  const [field] = operation.selectionSet.selections;
  return {
    scopes,
    creates: createsSpent(schema, operation.selectionSet, parsed),
    writeField: field?.kind === Kind.FIELD ? field.name.value : null,
    guarded: guardedWrite(operation, readBackOf(schema)),
  };
}

/** A REST request as its host hands it to the operation core: what the route reads, who asks, and since when. Nothing of Express in it. */
export interface RestCall extends RestRequest {
  requestId: string;
  /** The client's address and User-Agent, for the audit log. */
  client?: RequestClient;
  /** When the request arrived (performance.now()): its deadline counts from then. */
  startedAt: number;
  authentication: RequestAuthentication;
  /** Holds the caller's in-flight slot until the work settles (limits/rate-limits.ts). */
  holdSlot?: (work: Promise<unknown>) => void;
}

/**
 * A route's answer as the operation core makes it, for any host: the host has refused a request
 * without a principal (its 401) and read the body. Every method but GET writes.
 */
export function answerRoute(core: OperationCore, schema: GraphQLSchema, route: PreparedRoute, call: RestCall): Promise<Answer> {
  const { requestId, client, startedAt, authentication, holdSlot } = call;
  const write = route.method !== 'GET';
  const consistencyToken = call.header('consistency-token');
  return core.run({ surface: REST, requestId, client, startedAt, authentication, holdSlot, write, consistencyToken }, (context) => {
    // The host has answered a request without a principal: this only narrows the type.
    assertAuthenticated(context);
    // A key without the route's scope learns so first, whatever its body (the fields' own gate would say it later).
    const refusal = route.scopes.map((scope) => scopeRefusal(context.principal, scope)).find((found) => found !== null);
    if (refusal) return Promise.reject(refusal);
    return answerRest(core, schema, route, context, call);
  });
}

/**
 * A REST route's answer, as SOFA does it: the request only fills the variables of the route's
 * prepared document, which runs with the same context as `/graphql`; the data is the body,
 * reshaped where REST names differ; errors are one problem (the highest status wins). A POST or
 * PATCH with an Idempotency-Key runs through the key (operation-core.ts).
 */
export function answerRest(
  core: OperationCore,
  schema: GraphQLSchema,
  route: PreparedRoute,
  context: AuthenticatedContext,
  request: RestRequest,
): Promise<Answer> {
  // A query parameter the route does not take is a typo to report, not a filter to drop (contract section 18): before anything runs.
  const unknown = unknownParameterErrors(request.query, route.query ?? []);
  if (unknown.length > 0) return Promise.reject(badUserInput(unknown));
  const key = hasBody(route) ? request.header('idempotency-key') : undefined;
  if (key === undefined)
    return checkedVariables(schema, route, request, context).then((variables) => executeRoute(route, context, variables));
  const answer = core.idempotently(context, key, async () => {
    const variables = await checkedVariables(schema, route, request, context);
    return {
      operation: idempotencyOperation(schema, route, variables),
      // A change's If-Match is part of what it asks: the same key with another precondition is another request.
      request: route.method === 'PATCH' ? { body: request.body, ifMatch: request.header('if-match') ?? null } : request.body,
      execute: () => executeRoute(route, context, variables),
      rebuild: (created) => rebuildAnswer(schema, route, context, variables, created),
      showsSecretOnce: hasBody(route) && route.showsSecretOnce === true,
    };
  });
  // A kept answer is its body: a replay's ETag is read from it.
  return answer.then((kept) => (kept.headers['Idempotent-Replayed'] && route.etag ? withEtag(route, parsedBody(kept), kept) : kept));
}

function parsedBody(answer: Answer): unknown {
  return answer.status === 200 ? JSON.parse(answer.body) : null;
}

/**
 * What a key is scoped to besides the caller: the route, and the record its mutation declares it
 * writes to (one key sent to two policies' reinstatement, both with the body `{}`, is two
 * requests), as on `/graphql` (docs/decisions.md, issue 37).
 */
function idempotencyOperation(schema: GraphQLSchema, route: PreparedRoute, variables: Record<string, unknown>): string {
  const operation = `${route.method} ${route.path}`;
  const record = route.writeField === null ? {} : writtenRecord(schema, route.writeField, { variables });
  return Object.keys(record).length === 0 ? operation : `${operation} ${JSON.stringify(record)}`;
}

/** The request's variables, once every input check has passed (else BAD_USER_INPUT with the list). */
async function checkedVariables(
  schema: GraphQLSchema,
  route: PreparedRoute,
  request: RestRequest,
  context: AuthenticatedContext,
): Promise<Record<string, unknown>> {
  const variables = variablesOf(route, request, context);
  const body = request.body as Record<string, unknown>;
  const invalid = [
    ...refusedFieldErrors(route, body),
    ...unknownFieldErrors(route, body),
    ...(await inputErrors(schema, route.operation, variables)),
  ];
  if (invalid.length > 0) throw badUserInput(invalid);
  return variables;
}

async function executeRoute(route: PreparedRoute, context: RequestContext, variables: Record<string, unknown>): Promise<Answer> {
  const result = await inOperationSpan(route.operation, async () => route.compiled.query(undefined, context, variables));
  if (result.errors?.length) return errorAnswer(REST, result.errors, context);
  const body = route.response(result.data);
  // A DELETE that happened answers 204 with no body.
  if (route.method === 'DELETE') return { status: 204, contentType: 'application/json', body: '', headers: {} };
  return withEtag(route, body, jsonAnswer(body));
}

/** The answer of a create that already happened, read back from the record it made. */
async function rebuildAnswer(
  schema: GraphQLSchema,
  route: PreparedRoute,
  context: AuthenticatedContext,
  variables: Record<string, unknown>,
  created: CreatedRecord,
): Promise<Answer> {
  let body: unknown;
  if (hasBody(route) && route.rebuild) {
    body = await route.rebuild(context, created);
    if (body === null) return errorAnswer(REST, [notFound('What this request created is gone.')], context);
  } else {
    if (!route.guarded) throw new Error(`${route.method} ${route.path} declares no read-back`);
    const document = readBackDocument(route.parsed, route.operation, route.guarded, created);
    const result = await execute({ schema, document, contextValue: context, variableValues: variables });
    if (result.errors?.length) return errorAnswer(REST, result.errors, context);
    body = route.response(result.data);
  }
  return withEtag(route, body, jsonAnswer(body));
}

/** The route's refused fields present in the body (variablesOf has checked it is an object). */
function refusedFieldErrors(route: PreparedRoute, body: Record<string, unknown>): FieldError[] {
  if (!hasBody(route) || !route.refusedFields) return [];
  return Object.entries(route.refusedFields)
    .filter(([field]) => Object.hasOwn(body, field))
    .map(([path, message]) => ({ path, message }));
}

/**
 * A closed body's fields that its input type does not have (contract section 18), in the body's
 * order, each with the request's field within two edits when there is one: at the top (where a
 * refused field has its own message, refusedFieldErrors) and inside nested objects (an
 * organization's owners), but not inside a type that keeps extra properties (an address's
 * `additionalFields`). At most as many as a problem lists, so that a body of thousands of
 * misspelt keys costs no more than a hundred suggestions (the security review's linear checks).
 */
function unknownFieldErrors(route: PreparedRoute, body: Record<string, unknown>): FieldError[] {
  if (!hasBody(route) || !route.closedBody) return [];
  const refused = Object.keys(route.refusedFields ?? {});
  const errors: FieldError[] = [];
  for (const error of unknownFieldsAt(inputNode(body, route.bodyType))) {
    if (refused.includes(error.path)) continue;
    if (errors.push(error) === MAX_REPORTED_ERRORS) break;
  }
  return errors;
}

function* unknownFieldsAt(node: InputNode): Generator<FieldError> {
  const { type, value, path } = node;
  if (isInputObjectType(type) && isPlainObject(value) && !type.getFields().additionalFields) {
    const names = Object.keys(type.getFields());
    for (const field of Object.keys(value)) {
      if (names.includes(field)) continue;
      const near = closestName(field, names);
      const message = `is not a field of this request${near === null ? '' : `; did you mean "${near}"?`}`;
      yield { path: path ? `${path}.${field}` : field, message };
    }
  }
  for (const child of childNodes(node)) yield* unknownFieldsAt(child);
}

function variablesOf(route: PreparedRoute, request: RestRequest, context: AuthenticatedContext): Record<string, unknown> {
  if (!hasBody(route)) return route.variables(request, context.principal);
  const { body } = request;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badUserInput([], 'The request body must be a JSON object.');
  }
  return {
    ...route.pathVariables?.(request.params),
    ...route.headerVariables?.(request),
    ...(route.bodyVariable === undefined
      ? (inputFromBody(body, route.bodyType) as Record<string, unknown>)
      : { [route.bodyVariable]: inputFromBody(body, route.bodyType) }),
  };
}

/**
 * A 200 of a route whose body carries the record's version gets `ETag: "<version>"` (contract
 * section 15), also when replayed (operation-core.ts keeps a body, not its headers: a replay
 * reads the version from it).
 */
export function withEtag(route: PreparedRoute, body: unknown, answer: Answer): Answer {
  if (!route.etag || answer.status !== 200) return answer;
  const version = (body as { version?: unknown } | null)?.version;
  return typeof version === 'number' ? { ...answer, headers: { ...answer.headers, ETag: `"${version}"` } } : answer;
}
