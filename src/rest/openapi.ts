import { getNamedType, getOperationAST, isInputObjectType, parse, type GraphQLSchema } from 'graphql';
import { documentScopes } from '../auth/scope-gate.js';
import { ERROR_STATUS } from '../errors/errors.js';
import { EVENT_TYPES } from '../outbox/record-event.js';
import type { ChargeType } from '../policies/charge-types.js';
import { MAX_RATE_LIMIT_PER_SECOND } from '../webhooks/webhook-endpoint.input.js';
import { PLAIN_ROUTES } from './audit-export.js';
import {
  consistencyTokenHeader,
  consistencyTokenParameter,
  ERRORS,
  etagHeader,
  GET_ERRORS,
  idempotencyKey,
  idParameter,
  ifMatch,
  json,
  LIST_ERRORS,
  listSchema,
  POST_ERRORS,
  problem,
  rateLimitHeaders,
  ref,
  replayedHeader,
  requestIdHeader,
  UNKNOWN_PARAMETER,
} from './openapi-parts.js';
import { requestSchema, responseSchema, type JsonSchema, type SchemaOverlays } from './openapi-schemas.js';
import { bodyTypeOf, hasBody } from './rest-operation.js';
import type { PlainRoute, PostRoute, ResponseDoc, RestRoute, RouteTag } from './route-entry.js';
import { REST_ROUTES } from './routes.js';

/**
 * The OpenAPI 3.1 description of the `/api/v1` routes, served at `/api/v1/openapi.json`, written
 * from the route table: each entry's own words (`doc`, routes/*.ts) and what the entry already
 * says (method, path, query parameters, ETag, body, the document's scopes, response and request
 * types). This file holds only what no route can say: the document's head, the components no
 * route derives, and the mapping itself.
 *
 * Response schemas are closed (`additionalProperties: false`), so the test suite, which checks
 * every REST response it receives against this document, also catches any field that should
 * never appear (a cvc, a full account number). Request schemas give types and required fields;
 * the input rules themselves live on the GraphQL input classes and are described in words.
 */
type DescribedRoute = RestRoute | PlainRoute;
/** An OpenAPI operation, as far as this file builds it. */
type Operation = Record<string, unknown>;

/** What the GraphQL types cannot say about the REST shapes. */
const OVERLAYS: SchemaOverlays = {
  // REST sends and returns an address flat (its extra properties inline).
  types: { Address: ref('Address'), AddressInput: ref('AddressInput') },
  fields: {
    'CreateOrganizationInput.parentId': { format: undefined },
    'CreatePolicyInput.organizationId': { format: undefined },
    'CreatePolicyInput.number': { minimum: 1 },
    'RenewPolicyInput.number': { minimum: 1 },
    'CreateWebhookEndpointInput.organizationId': { format: undefined },
    'CreateWebhookEndpointInput.url': { format: 'uri' },
    // A change may leave them out, never send null (400).
    'UpdateWebhookEndpointInput.url': { type: 'string', format: 'uri' },
    'UpdateWebhookEndpointInput.enabled': { type: 'boolean' },
    'UpdateWebhookEndpointInput.rateLimitPerSecond': { minimum: 1, maximum: MAX_RATE_LIMIT_PER_SECOND },
    'WebhookEndpoint.rateLimitPerSecond': { minimum: 1, maximum: MAX_RATE_LIMIT_PER_SECOND },
    // A body made of the mutation's arguments (rest-operation.ts, bodyTypeOf): `<Operation>Body`.
    'RedeliverEventBody.endpointId': { description: 'An endpoint that receives the event' },
    'BankAccount.accountLast4': { maxLength: 4 },
    'Owner.taxIdLast4': { maxLength: 4 },
    'Charge.status': { const: 'scheduled' },
    'PolicyTransaction.changes': { description: 'Each changed field as `{ from, to }`; `{}` for an issuance' },
    'CreateQuoteInput.organizationId': { format: undefined },
    'PolicyCancellation.createdAt': { format: 'date-time' },
    'QuotedCharge.type': { enum: ['premium'] satisfies ChargeType[] },
    'QuotedCharge.status': { const: 'scheduled' },
    'Quote.expiresAt': { format: 'date-time' },
    'Quote.coverage': { description: 'The plan as it was when the quote was made. Amounts in cents.' },
    'WebhookAttempt.startedAt': { format: 'date-time' },
    'Policy.coverage': {
      description:
        'The plan in effect today: as it was when the policy was created, or when a change in effect today chose it. Amounts in cents.',
    },
  },
};

/** Each route's tag (RouteTag), described; the order is the reference page's. */
const TAGS: ReadonlyArray<{ name: RouteTag; description: string }> = [
  { name: 'Organizations', description: 'The organization hierarchy: a caller reaches its org and below, and what it created and below' },
  { name: 'Policies', description: 'Pet insurance policies, with their coverage snapshot and premium schedule' },
  {
    name: 'Billing',
    description:
      'Payments and refunds the integrator records (the service moves no money), and every policy read’s `billing`: billed, paid, balance, past due (after BILLING_GRACE_DAYS) and what falls due next',
  },
  {
    name: 'Quotes',
    description: 'The price of a policy before it binds: the plan and premium schedule issuing will use, valid for QUOTE_VALID_DAYS',
  },
  { name: 'Events', description: `What happened (${EVENT_TYPES.join(', ')}), kept 30 days, with the state of each webhook delivery` },
  {
    name: 'Webhooks',
    description: "Endpoints that receive the events of an organization's whole subtree, signed the Standard Webhooks way",
  },
  {
    name: 'API keys',
    description:
      'Keys for servers (`opk_live_…`, `opk_test_…`), sent as `Authorization: Bearer <key>` on every route: each acts for one organization and its subtree, within its scopes. Made, rotated and revoked with a token only.',
  },
  {
    name: 'Audit log',
    description: 'One entry per successful write, chained and sealed so that a changed or removed entry shows (contract section 21)',
  },
];

const addressInput = {
  type: 'object',
  description: 'Every property is kept and returned, including ones not named here. Strings at most 255 characters.',
  properties: Object.fromEntries(
    ['line1', 'line2', 'division', 'city', 'postal', 'country'].map((name) => [name, { type: ['string', 'null'] }]),
  ),
  additionalProperties: true,
};

/** RFC 9457 problem details (contract section 6); `code` from the error table, so a new code cannot be missing here. */
const PROBLEM = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', const: 'about:blank' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string', examples: ['owners[1].ownership'] }, message: { type: 'string' } },
        additionalProperties: false,
      },
    },
    requestId: { type: 'string', description: 'Only on 500' },
  },
  additionalProperties: false,
};

/** The OpenAPI 3.1 document, built once at start-up from the schema and the route table. */
export function openApiDocument(schema: GraphQLSchema, version: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Organization and Policy service: REST compatibility layer',
      version,
      description:
        'The four operations of the interface document, changing an organization, two lists (organizations, policies), quotes, billing, events, webhook endpoints, API keys and the audit log. Every route needs `Authorization: Bearer <JWT or API key>`. ' +
        'A record the caller may not access answers 404, exactly like a missing one. Errors are RFC 9457 problem details ' +
        'whose `code` equals the GraphQL `extensions.code`.',
    },
    servers: [{ url: '/' }],
    tags: TAGS,
    security: [{ bearerAuth: [] }],
    paths: pathsOf(schema, [...REST_ROUTES, ...PLAIN_ROUTES]),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A JWT (claims: `sub` required, `exp` required, `org` optional organization id, `iss`/`aud` when configured), or an API key (`opk_live_…`/`opk_test_…`: it acts for its organization within its scopes).',
        },
      },
      schemas: {
        Problem: PROBLEM,
        AddressInput: addressInput,
        Address: { ...addressInput, description: 'As sent: the named properties that were given, and every other one.' },
        ...routeSchemas(schema, REST_ROUTES),
      },
    },
  };
}

/** `/api/v1/policy/:id` as OpenAPI writes it. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** Every route's operation, under its path, in the table's order. */
function pathsOf(schema: GraphQLSchema, routes: readonly DescribedRoute[]): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    const path = (paths[openApiPath(route.path)] ??= {});
    const method = route.method.toLowerCase();
    if (path[method]) throw new Error(`${route.method} ${route.path} is in the route table twice`);
    path[method] = operationOf(schema, route);
  }
  return paths;
}

function operationOf(schema: GraphQLSchema, route: DescribedRoute): Operation {
  const { doc } = route;
  // Contract section 20: what an API key needs, from the scopes the document's fields declare (auth/scope-gate.ts).
  const scopes = 'scopes' in route ? route.scopes : documentScopes(schema, parse(route.document));
  const needs = scopes.includes('tokens-only')
    ? 'A token only: an API key cannot call this route'
    : `An API key needs the scope ${scopes.map((scope) => `\`${scope}\``).join(' and ')}`;
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description ? `${doc.description}\n\n${needs}.` : `${needs}.`,
    tags: [doc.tag],
    'x-api-key-scopes': scopes,
    parameters: parametersOf(route),
    ...('document' in route && hasBody(route) ? { requestBody: requestBodyOf(route) } : {}),
    responses: responsesOf(route, `${needs} (code FORBIDDEN, naming the scope)`),
  };
}

/**
 * The path's id, the query parameters the route declares, then the headers: a read takes a
 * Consistency-Token (contract section 17), a create or change an Idempotency-Key (and, with an
 * ETag to match, If-Match).
 */
function parametersOf(route: DescribedRoute): unknown[] {
  const path = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => {
    if (name !== 'id') throw new Error(`${route.path}: a path parameter other than :id needs its description here`);
    return route.doc.pathParameter ?? idParameter;
  });
  const query = (route.query ?? []).map(({ name, schema, description }) => ({
    name,
    in: 'query',
    required: false,
    schema,
    ...(description && { description }),
  }));
  if (route.method === 'GET') return [...path, ...query, consistencyTokenParameter];
  if (route.method === 'DELETE') return [...path, ...query];
  return [...path, ...query, ...(route.method === 'PATCH' && route.etag ? [ifMatch] : []), idempotencyKey];
}

function requestBodyOf(route: PostRoute<unknown>) {
  const { schema, examples } = route.doc.body;
  const shown = examples && { examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])) };
  const media = { schema: ref(schema), ...shown };
  return {
    // A body of no fields (a test event's) may be left out: it is read as {} (rest-router.ts).
    required: route.bodyFields?.length !== 0,
    content:
      route.method === 'PATCH' ? { 'application/merge-patch+json': media, 'application/json': media } : { 'application/json': media },
  };
}

/**
 * The success, the errors every route of its kind answers (openapi-parts.ts) overlaid with the
 * route's own, and two sentences every route's errors carry: a query parameter it does not take
 * is 400 (contract section 18), and a key without its scope is 403 (section 20).
 */
function responsesOf(route: DescribedRoute, forbidden: string): Record<number, ResponseDoc> {
  const lists = route.query?.some((parameter) => parameter.name === 'limit');
  const kind = route.method === 'GET' ? (lists ? LIST_ERRORS : GET_ERRORS) : route.method === 'DELETE' ? ERRORS : POST_ERRORS;
  const errors = { ...kind, ...route.doc.errors };
  const invalid = errors[400]?.description;
  return {
    [route.method === 'DELETE' ? 204 : 200]: successOf(route),
    ...errors,
    400: problem(invalid ? `${invalid}; or ${UNKNOWN_PARAMETER}` : `Code BAD_USER_INPUT: ${UNKNOWN_PARAMETER}`),
    403: problem(errors[403] ? `${errors[403].description}; or: ${forbidden}` : forbidden),
  };
}

/** The 2xx: its headers from what the route is (a write answers a Consistency-Token, contract section 17), its body from `answer`. */
function successOf(route: DescribedRoute): ResponseDoc {
  const { answer } = route.doc;
  const headers = {
    ...requestIdHeader,
    ...('etag' in route && route.etag ? etagHeader : {}),
    ...(route.method === 'POST' || route.method === 'PATCH' ? replayedHeader : {}),
    ...rateLimitHeaders,
    ...(route.method === 'GET' ? {} : consistencyTokenHeader),
  };
  const content = answer.content ?? (answer.schema && json(ref(answer.list ?? answer.schema)));
  return { description: answer.description, headers, ...(content && { content }) };
}

/**
 * The components the route table makes: each body's from its input type (closed exactly when
 * the route refuses unknown fields), each answer's that a route derives from its document, and
 * each list page. A name made twice is a mistake in the table.
 */
function routeSchemas(schema: GraphQLSchema, routes: readonly RestRoute[]): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  const add = (name: string, made: JsonSchema) => {
    if (schemas[name]) throw new Error(`the component ${name} is made by two routes`);
    schemas[name] = made;
  };
  for (const route of routes) {
    const { answer } = route.doc;
    if (hasBody(route)) add(route.doc.body.schema, bodySchema(schema, route));
    if (answer.derive) add(answer.schema!, responseSchema(schema, route.document, OVERLAYS, [...answer.derive]));
    if (answer.list) add(answer.list, listSchema(answer.schema!));
  }
  return schemas;
}

function bodySchema(schema: GraphQLSchema, route: PostRoute<unknown>): JsonSchema {
  const type = getNamedType(bodyTypeOf(schema, route, getOperationAST(parse(route.document))!));
  if (!isInputObjectType(type)) throw new Error(`${route.method} ${route.path}: the body is not an input object`);
  const { description, rules } = route.doc.body;
  return { ...requestSchema(type, OVERLAYS, route.closedBody ? 'closed' : 'open'), ...rules, ...(description && { description }) };
}
