import { policyNotFound } from '../policies/policy.reads.js';
import { badUserInput, preconditionFailed } from '../errors/errors.js';
import { MAX_PAGE_SIZE } from '../graphql/connection.js';
import { parsePolicyNumber } from '../values/identifiers.js';
import { policyFilterVariables } from '../policies/policy-filters.js';
import type { Principal } from '../auth/principal.js';
import type { AuthenticatedContext } from '../graphql/context.js';
import type { CreatedRecord } from '../idempotency/idempotency.js';
import { createdEndpointAnswer } from '../webhooks/create-webhook-endpoint.js';
import { findAccessibleEndpoint } from '../webhooks/webhook-endpoint.reads.js';
import { findAccessibleDelivery } from '../events/event.reads.js';
import { targetOrganizationId } from '../organizations/organization.reads.js';
import { REFUSED_QUOTE_FIELDS } from '../quotes/quote.input.js';
import { keyShownOnce } from '../api-keys/api-key.writes.js';
import type {
  ApiKeyQuery,
  ApiKeysQuery,
  CreateApiKeyMutation,
  RevokeApiKeyMutation,
  RotateApiKeyMutation,
  AuditLogQuery,
  AuditLogVerificationQuery,
  CancelPolicyMutation,
  ChangePolicyMutation,
  CreateOrganizationMutation,
  CreatePolicyMutation,
  CreateQuoteMutation,
  CreateWebhookEndpointMutation,
  UpdateOrganizationMutation,
  UpdateWebhookEndpointMutation,
  DeleteWebhookEndpointMutation,
  RotateWebhookEndpointSecretMutation,
  SendTestWebhookMutation,
  RedeliverEventMutation,
  RecoverWebhookEndpointMutation,
  EventQuery,
  EventsQuery,
  OrganizationQuery,
  OrganizationsQuery,
  PoliciesQuery,
  PolicyQuery,
  PolicyTransactionsQuery,
  PolicyPaymentsQuery,
  RecordPaymentMutation,
  RecordRefundMutation,
  QuoteQuery,
  ReinstatePolicyMutation,
  RenewPolicyMutation,
  WebhookEndpointAttemptsQuery,
  WebhookEndpointQuery,
  WebhookEndpointsQuery,
} from './generated/operations.js';
import { flattenAddress } from './input-from-body.js';
import {
  API_KEY,
  API_KEYS,
  CREATE_API_KEY,
  REVOKE_API_KEY,
  ROTATE_API_KEY,
  AUDIT_LOG,
  AUDIT_LOG_VERIFICATION,
  CANCEL_POLICY,
  CHANGE_POLICY,
  CREATE_ORGANIZATION,
  CREATE_POLICY,
  CREATE_QUOTE,
  CREATE_WEBHOOK_ENDPOINT,
  DELETE_WEBHOOK_ENDPOINT,
  ROTATE_WEBHOOK_SECRET,
  SEND_TEST_WEBHOOK,
  REDELIVER_EVENT,
  RECOVER_WEBHOOK_ENDPOINT,
  EVENT,
  EVENTS,
  ORGANIZATION,
  ORGANIZATIONS,
  POLICIES,
  POLICY,
  POLICY_TRANSACTIONS,
  POLICY_PAYMENTS,
  RECORD_PAYMENT,
  RECORD_REFUND,
  QUOTE,
  REINSTATE_POLICY,
  RENEW_POLICY,
  UPDATE_ORGANIZATION,
  UPDATE_WEBHOOK_ENDPOINT,
  WEBHOOK_ENDPOINT,
  WEBHOOK_ENDPOINT_ATTEMPTS,
  WEBHOOK_ENDPOINTS,
} from './operations.js';

/**
 * The REST compatibility layer as data: each `/api/v1` route is one GraphQL document
 * (operations.ts), parsed, validated and compiled once at start-up; a request only supplies
 * variables (path parameter or JSON body) and the response is the operation's data, reshaped
 * where REST names differ. `response` is typed by the document's generated result type.
 */
/** A REST request as a route reads it: nothing of Express in it. */
export interface RestRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  header(name: string): string | undefined;
}

interface RouteOf<Data> {
  path: string;
  document: string;
  /** The operation's data as the REST body. */
  response: (data: Data) => unknown;
  /** The body carries the record's `version`, sent as `ETag: "<version>"` on a 200 (contract section 15). */
  etag?: boolean;
}

/**
 * A read: path and query parameters (and, for defaults, the caller's token) become the
 * variables; may throw NOT_FOUND for impossible ids, 400 for bad parameters.
 */
export interface GetRoute<Data = never> extends RouteOf<Data> {
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
export interface PostRoute<Data = never> extends RouteOf<Data> {
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
   * Unknown top-level body fields are 400 (contract section 18: policy bodies), each listed with
   * a "did you mean" for a field of the request within two edits. Without it they are dropped
   * (organization bodies: the interface document allows extra fields).
   */
  closedBody?: boolean;
  /** Variables from the path (a policy's number), besides the body's. */
  pathVariables?: (params: RestRequest['params']) => Record<string, unknown>;
  /** Variables from the request's headers (a change's If-Match); may throw its error. */
  headerVariables?: (request: Pick<RestRequest, 'header'>) => Record<string, unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- routes of different Data in one list: any stands for "some Data", each entry is checked where it is built.
export type RestRoute = GetRoute<any> | PostRoute<any>;

const get = <Data>(route: Omit<GetRoute<Data>, 'method'>): GetRoute<Data> => ({ method: 'GET', ...route });
const del = <Data>(route: Omit<GetRoute<Data>, 'method' | 'response'>): GetRoute<Data> => ({
  method: 'DELETE',
  response: () => null,
  ...route,
});
const post = <Data>(route: Omit<PostRoute<Data>, 'method'>): PostRoute<Data> => ({ method: 'POST', ...route });
const patch = <Data>(route: Omit<PostRoute<Data>, 'method'>): PostRoute<Data> => ({ method: 'PATCH', ...route });

export const REST_ROUTES: RestRoute[] = [
  post<CreateOrganizationMutation>({
    path: '/api/v1/organization',
    document: CREATE_ORGANIZATION,
    bodyVariable: 'input',
    etag: true,
    response: ({ createOrganization: organization }) => organizationBody(organization),
  }),
  get<OrganizationsQuery>({
    path: '/api/v1/organization',
    document: ORGANIZATIONS,
    // Without parentId, the caller's entry points; with it (even empty: then 404), its children.
    // With q, a search (contract section 23) of the caller's reach or of organizationId's subtree.
    variables: ({ query }) => {
      const parentId = singleParameter(query, 'parentId');
      const q = singleParameter(query, 'q');
      const scope = singleParameter(query, 'organizationId');
      if (q !== undefined) refuseAlongside(query, ['parentId'], 'q, which searches every organization the caller may see');
      else if (scope !== undefined)
        throw badUserInput([{ path: 'organizationId', message: 'is for a search (with q); parentId lists children' }]);
      const [search, children] = [q !== undefined, q === undefined && parentId !== undefined];
      return {
        children,
        entries: !search && !children,
        search,
        parentId: parentId ?? '',
        q: q ?? '',
        scope: scope ?? null,
        ...pageVariables(query),
      };
    },
    response: (data) => {
      const page = listBody((data.organization?.children ?? data.viewer?.organizations ?? data.found?.searchOrganizations)!);
      return { ...page, data: page.data.map(organizationBody) };
    },
  }),
  get<OrganizationQuery>({
    path: '/api/v1/organization/:id',
    document: ORGANIZATION,
    etag: true,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.organization && organizationBody(data.organization),
  }),
  patch<UpdateOrganizationMutation>({
    path: '/api/v1/organization/:id',
    document: UPDATE_ORGANIZATION,
    bodyVariable: 'input',
    etag: true,
    refusedFields: {
      id: 'cannot be changed: the organization is the one in the path',
      parentId: 'cannot be changed: an organization stays under the parent it was created under',
    },
    pathVariables: (params) => ({ id: params.id }),
    headerVariables: (request) => ({ ifVersion: ifMatchVersion(request.header('if-match')) }),
    response: ({ updateOrganization: organization }) => organizationBody(organization),
  }),
  post<CreatePolicyMutation>({
    path: '/api/v1/policy',
    document: CREATE_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    response: (data) => data.createPolicy,
  }),
  post<CreateQuoteMutation>({
    path: '/api/v1/quote',
    document: CREATE_QUOTE,
    closedBody: true,
    bodyVariable: 'input',
    refusedFields: Object.fromEntries(
      REFUSED_QUOTE_FIELDS.map((field) => [
        field,
        'is not part of a quote: send it when issuing the quote (POST /api/v1/policy with quoteId)',
      ]),
    ),
    response: (data) => data.createQuote,
  }),
  get<QuoteQuery>({
    path: '/api/v1/quote/:id',
    document: QUOTE,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.quote,
  }),
  get<PoliciesQuery>({
    path: '/api/v1/policy',
    document: POLICIES,
    // organizationId defaults to the token's org claim; with neither there is nothing to list.
    // internalID looks among every policy the caller may access instead (contract section 18), and
    // q searches them, or organizationId's subtree (contract section 23); the filters apply to all three.
    variables: ({ query }, principal) => {
      const read = (name: string) => singleParameter(query, name);
      const filters = policyFilterVariables(read);
      const [internalID, q] = [read('internalID'), read('q')];
      if (internalID !== undefined) {
        refuseAlongside(
          query,
          ['organizationId', 'includeDescendants', 'q'],
          'internalID, which looks among every policy the caller may see',
        );
      }
      if (q !== undefined) refuseAlongside(query, ['includeDescendants'], 'q, which searches the whole subtree');
      const list = internalID === undefined && q === undefined;
      return {
        list,
        byInternalID: internalID !== undefined,
        search: q !== undefined,
        internalID: internalID ?? '',
        q: q ?? '',
        organizationId: list ? targetOrganizationId(read('organizationId'), principal) : '',
        scope: q === undefined ? null : (read('organizationId') ?? null),
        includeDescendants: booleanParameter(query, 'includeDescendants'),
        ...filters,
        ...pageVariables(query),
      };
    },
    response: (data) => listBody((data.organization?.policies ?? data.viewer?.policies ?? data.found?.searchPolicies)!),
  }),
  get<PolicyQuery>({
    path: '/api/v1/policy/:id',
    document: POLICY,
    etag: true,
    variables: ({ params }) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.policy,
  }),
  get<PolicyTransactionsQuery>({
    path: '/api/v1/policy/:id/transactions',
    document: POLICY_TRANSACTIONS,
    variables: ({ params, query }) => ({ number: policyNumberParameter(params), ...pageVariables(query) }),
    response: (data) => listBody(data.policy!.transactions),
  }),
  post<ChangePolicyMutation>({
    path: '/api/v1/policy/:id/changes',
    document: CHANGE_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.changePolicy,
  }),
  post<CancelPolicyMutation>({
    path: '/api/v1/policy/:id/cancellation',
    document: CANCEL_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.cancelPolicy,
  }),
  post<ReinstatePolicyMutation>({
    path: '/api/v1/policy/:id/reinstatement',
    document: REINSTATE_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.reinstatePolicy,
  }),
  post<RenewPolicyMutation>({
    path: '/api/v1/policy/:id/renewal',
    document: RENEW_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.renewPolicy,
  }),
  post<RecordPaymentMutation>({
    path: '/api/v1/policy/:id/payments',
    document: RECORD_PAYMENT,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.recordPayment,
  }),
  get<PolicyPaymentsQuery>({
    path: '/api/v1/policy/:id/payments',
    document: POLICY_PAYMENTS,
    variables: ({ params, query }) => ({ number: policyNumberParameter(params), ...pageVariables(query) }),
    response: (data) => listBody(data.policy!.payments),
  }),
  post<RecordRefundMutation>({
    path: '/api/v1/policy/:id/refunds',
    document: RECORD_REFUND,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.recordRefund,
  }),
  get<EventsQuery>({
    path: '/api/v1/events',
    document: EVENTS,
    variables: ({ query }) => ({
      organizationId: singleParameter(query, 'organizationId') ?? null,
      types: listParameter(query, 'type'),
      ...pageVariables(query),
    }),
    response: (data) => listBody(data.events),
  }),
  get<EventQuery>({
    path: '/api/v1/events/:id',
    document: EVENT,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.event,
  }),
  post<CreateWebhookEndpointMutation>({
    path: '/api/v1/webhook-endpoints',
    document: CREATE_WEBHOOK_ENDPOINT,
    bodyVariable: 'input',
    rebuild: ({ db, principal, cipher }, created) => createdEndpointAnswer({ db, principal, cipher }, (created as { id: string }).id),
    response: (data) => data.createWebhookEndpoint,
  }),
  get<WebhookEndpointsQuery>({
    path: '/api/v1/webhook-endpoints',
    document: WEBHOOK_ENDPOINTS,
    variables: ({ query }) => ({
      organizationId: singleParameter(query, 'organizationId') ?? null,
      ...pageVariables(query),
    }),
    response: (data) => listBody(data.webhookEndpoints),
  }),
  get<WebhookEndpointQuery>({
    path: '/api/v1/webhook-endpoints/:id',
    document: WEBHOOK_ENDPOINT,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.webhookEndpoint,
  }),
  get<WebhookEndpointAttemptsQuery>({
    path: '/api/v1/webhook-endpoints/:id/attempts',
    document: WEBHOOK_ENDPOINT_ATTEMPTS,
    variables: ({ params, query }) => ({ id: params.id, ...pageVariables(query) }),
    response: (data) => listBody(data.webhookEndpoint!.attempts),
  }),
  // Contract section 22: a merge patch; unknown fields are 400 with a "did you mean" (closed), the organization never changes.
  patch<UpdateWebhookEndpointMutation>({
    path: '/api/v1/webhook-endpoints/:id',
    document: UPDATE_WEBHOOK_ENDPOINT,
    bodyVariable: 'input',
    closedBody: true,
    refusedFields: {
      id: 'cannot be changed: the endpoint is the one in the path',
      organizationId: 'cannot be changed: delete the endpoint and register one on the other organization',
    },
    pathVariables: (params) => ({ id: params.id }),
    headerVariables: (request) => noEntityTag(request.header('if-match')),
    // A keyed change that happened (a retry after a crash): the endpoint as it reads now.
    rebuild: ({ db, principal }, created) => findAccessibleEndpoint(db, principal, (created as { id: string }).id),
    response: (data) => data.updateWebhookEndpoint,
  }),
  del<DeleteWebhookEndpointMutation>({
    path: '/api/v1/webhook-endpoints/:id',
    document: DELETE_WEBHOOK_ENDPOINT,
    variables: ({ params }) => ({ id: params.id }),
  }),
  // Contract section 22: the new secret is kept sealed in the endpoint's row, so a retry after a crash reads it back from there.
  post<RotateWebhookEndpointSecretMutation>({
    path: '/api/v1/webhook-endpoints/:id/secret-rotation',
    document: ROTATE_WEBHOOK_SECRET,
    bodyVariable: 'input',
    closedBody: true,
    pathVariables: (params) => ({ id: params.id }),
    rebuild: async ({ db, principal, cipher }, created) => {
      const endpoint = await createdEndpointAnswer({ db, principal, cipher }, (created as { id: string }).id);
      return endpoint && { secret: endpoint.secret };
    },
    response: (data) => data.rotateWebhookEndpointSecret,
  }),
  // Contract section 22: deliveries a caller asks for. A keyed retry of one that happened reads back the delivery it made.
  post<SendTestWebhookMutation>({
    path: '/api/v1/webhook-endpoints/:id/test',
    document: SEND_TEST_WEBHOOK,
    bodyFields: [],
    closedBody: true,
    pathVariables: (params) => ({ id: params.id }),
    rebuild: async ({ db, principal }, created) => {
      const delivery = await findAccessibleDelivery(db, principal, (created as { id: string }).id);
      return delivery && { eventId: delivery.eventId, deliveryId: delivery.id };
    },
    response: (data) => data.sendTestWebhook,
  }),
  post<RedeliverEventMutation>({
    path: '/api/v1/events/:id/redeliveries',
    document: REDELIVER_EVENT,
    bodyFields: ['endpointId'],
    closedBody: true,
    pathVariables: (params) => ({ id: params.id }),
    rebuild: ({ db, principal }, created) => findAccessibleDelivery(db, principal, (created as { id: string }).id),
    response: (data) => data.redeliverEvent,
  }),
  post<RecoverWebhookEndpointMutation>({
    path: '/api/v1/webhook-endpoints/:id/recovery',
    document: RECOVER_WEBHOOK_ENDPOINT,
    bodyVariable: 'input',
    closedBody: true,
    pathVariables: (params) => ({ id: params.id }),
    rebuild: async (_context, created) => ({ queued: (created as { queued: number }).queued }),
    response: (data) => data.recoverWebhookEndpoint,
  }),
  // Contract section 20. A create's or rotation's key is shown once: a retry of one that happened is 409 (keyShownOnce).
  post<CreateApiKeyMutation>({
    path: '/api/v1/api-keys',
    document: CREATE_API_KEY,
    bodyVariable: 'input',
    closedBody: true,
    showsSecretOnce: true,
    rebuild: (_context, created) => Promise.reject(keyShownOnce((created as { id: string }).id)),
    response: (data) => data.createApiKey,
  }),
  get<ApiKeysQuery>({
    path: '/api/v1/api-keys',
    document: API_KEYS,
    variables: ({ query }) => ({
      organizationId: singleParameter(query, 'organizationId') ?? null,
      ...pageVariables(query),
    }),
    response: (data) => listBody(data.apiKeys),
  }),
  get<ApiKeyQuery>({
    path: '/api/v1/api-keys/:id',
    document: API_KEY,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.apiKey,
  }),
  del<RevokeApiKeyMutation>({
    path: '/api/v1/api-keys/:id',
    document: REVOKE_API_KEY,
    variables: ({ params }) => ({ id: params.id }),
  }),
  post<RotateApiKeyMutation>({
    path: '/api/v1/api-keys/:id/rotation',
    document: ROTATE_API_KEY,
    bodyVariable: 'input',
    closedBody: true,
    pathVariables: (params) => ({ id: params.id }),
    showsSecretOnce: true,
    rebuild: (_context, created) => Promise.reject(keyShownOnce((created as { id: string }).id)),
    response: (data) => data.rotateApiKey,
  }),
  // Contract section 21 (the export, a stream, is a route of its own: rest/audit-export.ts).
  get<AuditLogQuery>({
    path: '/api/v1/audit-log',
    document: AUDIT_LOG,
    variables: ({ query }) => ({
      organizationId: singleParameter(query, 'organizationId') ?? null,
      actions: listParameter(query, 'action'),
      actorSub: singleParameter(query, 'actorSub') ?? null,
      since: singleParameter(query, 'since') ?? null,
      until: singleParameter(query, 'until') ?? null,
      ...pageVariables(query),
    }),
    response: (data) => listBody(data.auditLog),
  }),
  get<AuditLogVerificationQuery>({
    path: '/api/v1/audit-log/verify',
    document: AUDIT_LOG_VERIFICATION,
    variables: ({ query }) => ({ organizationId: singleParameter(query, 'organizationId') ?? null }),
    response: (data) => data.auditLogVerification,
  }),
];

/** An organization as REST answers it (create, change, read, list item): addresses flat, as REST clients send them. */
function organizationBody(organization: CreateOrganizationMutation['createOrganization']) {
  return {
    ...organization,
    address: flattenAddress(organization.address),
    owners: organization.owners.map((owner) => ({ ...owner, address: flattenAddress(owner.address) })),
  };
}

/**
 * `If-Match` (RFC 9110) as the version a change was made against: absent is none (the last write
 * wins), `*` any (the organization exists), `"<version>"` or a list of them that one version
 * (a list of several can only match one: it is refused unless they agree). A weak tag never
 * matches (If-Match compares strongly), nor does anything malformed: 412, nothing written.
 */
export function ifMatchVersion(header: string | undefined): number | null {
  if (header === undefined || header.trim() === '*') return null;
  const tags = header.split(',').map((tag) => tag.trim());
  const versions = new Set(tags.map((tag) => /^"([1-9][0-9]{0,9})"$/.exec(tag)?.[1] ?? null));
  const [version] = versions;
  if (versions.size !== 1 || version === null || Number(version) > 2_147_483_647) {
    throw preconditionFailed('If-Match must be the ETag of a read, e.g. "3" (quotes included).');
  }
  return Number(version);
}

/**
 * `If-Match` on a record without versions (a webhook endpoint): absent or `*` (RFC 9110: any
 * current representation) passes; any entity tag cannot match one the record never had, so it is
 * 412 and nothing is written, rather than ignored.
 */
export function noEntityTag(header: string | undefined): Record<string, never> {
  if (header === undefined || header.trim() === '*') return {};
  throw preconditionFailed('A webhook endpoint has no ETag: send the change without If-Match (or with If-Match: *).');
}

/** The policy number of the path; not a policy number at all is the same 404 as a missing policy, without a query. */
function policyNumberParameter(params: RestRequest['params']): number {
  const number = parsePolicyNumber(String(params.id));
  if (number === null) throw policyNotFound();
  return number;
}

/** A comma-separated list parameter (`type=a,b`), given once; absent is null. */
function listParameter(query: RestRequest['query'], name: string): string[] | null {
  const value = singleParameter(query, name);
  return value === undefined ? null : value.split(',');
}

/** A query parameter given once (repeated or nested parameters are refused with 400). */
/** A query parameter given at most once, as text (a repeated one is 400): the routes' and the audit export's. */
export function singleParameter(query: RestRequest['query'], name: string): string | undefined {
  const value = query[name];
  if (value === undefined || typeof value === 'string') return value;
  throw badUserInput([{ path: name, message: 'must be given once, as text' }]);
}

/** Parameters that cannot be combined with the one given (`given` says which, and why): each a 400 naming it. */
function refuseAlongside(query: RestRequest['query'], names: readonly string[], given: string): void {
  const alongside = names.filter((name) => query[name] !== undefined);
  if (alongside.length > 0) throw badUserInput(alongside.map((path) => ({ path, message: `cannot be combined with ${given}` })));
}

/** `true` or `false`; absent is false. */
function booleanParameter(query: RestRequest['query'], name: string): boolean {
  const value = singleParameter(query, name);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badUserInput([{ path: name, message: 'must be true or false' }]);
}

/** A list's page (spec section 10): `limit` as `first`, the cursor `after` as is (checked by the connection). */
function pageVariables(query: RestRequest['query']): { first: number; after: string | null } {
  return { first: pageLimit(query), after: singleParameter(query, 'after') ?? null };
}

/** `limit`: 1 to MAX_PAGE_SIZE, default 20 (spec section 10). */
function pageLimit(query: RestRequest['query']): number {
  const limit = singleParameter(query, 'limit');
  if (limit === undefined) return 20;
  if (!/^[1-9][0-9]{0,2}$/.test(limit) || Number(limit) > MAX_PAGE_SIZE) {
    throw badUserInput([{ path: 'limit', message: `must be a whole number from 1 to ${MAX_PAGE_SIZE}` }]);
  }
  return Number(limit);
}

/** A connection as a REST list: `{ data, hasMore, nextCursor }`. */
function listBody<T>(connection: { edges: Array<{ node: T }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } }) {
  return {
    data: connection.edges.map((edge) => edge.node),
    hasMore: connection.pageInfo.hasNextPage,
    nextCursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
  };
}
