import { parse, type GraphQLSchema } from 'graphql';
import { documentScopes } from '../auth/scope-gate.js';
import { EXPORT_SCOPE } from './audit-export.js';
import { LSN_PATTERN } from '../database/replicas.js';
import { ERROR_STATUS } from '../errors/errors.js';
import { requestSchema, responseSchema, type SchemaOverlays } from './openapi-schemas.js';
import { REST_ROUTES, type RestRoute } from './routes.js';
import { QUOTED_FIELDS, REQUIRED_UNLESS_QUOTED } from '../policies/policy.input.js';
import { POLICY_FILTER_PARAMETERS } from '../policies/policy-filters.js';
import { QUERY_LENGTH } from '../graphql/search-position.js';
import type { ChargeType } from '../policies/charge-types.js';
import { TRANSACTION_TYPES } from '../policies/policy-transaction.entity.js';
import { EVENT_TYPES } from '../outbox/record-event.js';
import { MAX_RATE_LIMIT_PER_SECOND } from '../webhooks/webhook-endpoint.input.js';
import { addDays, addMonthsClamped, todayUtc } from '../values/calendar-date.js';
import { STATUS_FILTER_WALK } from '../policies/policy.reads.js';

/**
 * The OpenAPI 3.1 description of the `/api/v1` routes, served at `/api/v1/openapi.json`.
 * Response schemas are closed (`additionalProperties: false`), so the test suite, which checks
 * every REST response it receives against this document, also catches any field that should
 * never appear (a cvc, a full account number). Request schemas give types and required fields;
 * the input rules themselves live on the GraphQL input classes and are described in words.
 */
const nullableString = { type: ['string', 'null'] };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
/** On every answer: the request's id (the one sent, or a new one), to quote to support. */
const requestIdHeader = {
  'X-Request-Id': { description: 'The request id: the one the client sent, or a new UUID', schema: { type: 'string' } },
};
const problem = (description: string, headers?: object) => ({
  description,
  headers: { ...requestIdHeader, ...headers },
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } } };
const rateLimitHeaders = {
  RateLimit: { description: 'IETF draft 11: what is left of each policy, e.g. `"requests";r=5999;t=42`', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF draft 11: the policies counted, e.g. `"requests";q=6000;w=60`', schema: { type: 'string' } },
};

const ERRORS = {
  401: problem('No token, or a refused token', {
    'WWW-Authenticate': { description: 'RFC 6750 challenge', schema: { type: 'string' } },
  }),
  429: problem('Over a per-caller rate limit (code RATE_LIMITED): requests a minute, creates a minute, or requests in flight', {
    ...retryAfter,
    ...rateLimitHeaders,
  }),
  500: problem('Unexpected failure; the body carries only a request id'),
  503: problem('The database is unreachable, or the request did not finish within its deadline', retryAfter),
};
const POST_ERRORS = {
  ...ERRORS,
  400: problem('The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`)'),
  413: problem('The body is larger than 100 KB'),
  415: problem('The body is not application/json, or not UTF-8'),
  422: problem('The Idempotency-Key was already used with a different body (code IDEMPOTENCY_KEY_REUSED)'),
};

/** A search's query (contract section 23). */
const SEARCH_PARAMETER = {
  name: 'q',
  in: 'query',
  required: false,
  schema: { type: 'string', minLength: QUERY_LENGTH.min, maxLength: QUERY_LENGTH.max },
  description: `Search (${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters): typos are forgiven (trigram similarity)`,
};

/** The paging parameters of every list (spec section 10). */
const PAGE_PARAMETERS = [
  { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
  { name: 'after', in: 'query', required: false, schema: { type: 'string' }, description: 'The `nextCursor` of the previous page' },
];
const LIST_ERRORS = {
  ...ERRORS,
  400: problem(
    'A query parameter is invalid: `limit` not 1–100, `after` not a cursor of this list, a parameter given twice, `q` not 2–100 characters, ' +
      'two that cannot be combined, or (policies) `includeDescendants` not true/false, no `organizationId` and no org claim, a filter’s value ' +
      'not one (a status, a date as YYYY-MM-DD, a plan of the catalog) or `effectiveFrom` after `effectiveTo`',
  ),
};
/** A record's uuid in the path. */
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
/** A read of one record by its uuid: 200 with `schema`, or 404 `missing`. */
const readById = (operationId: string, summary: string, tag: string, schema: string, missing: string) => ({
  operationId,
  summary,
  tags: [tag],
  parameters: [idParameter],
  responses: {
    200: { description: 'Found', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json(ref(schema)) },
    404: problem(missing),
    ...ERRORS,
  },
});
/** A DELETE of one record by its uuid: 204 `done`, or 404 `missing`. */
const deleteById = (operationId: string, summary: string, tag: string, done: string, missing: string) => ({
  operationId,
  summary,
  tags: [tag],
  parameters: [idParameter],
  responses: { 204: { description: done, headers: { ...requestIdHeader, ...rateLimitHeaders } }, 404: problem(missing), ...ERRORS },
});
const ORGANIZATION_POST_ERRORS = {
  ...POST_ERRORS,
  400: problem(
    'The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`); among them, `parentId` (or the token’s org) already at ORGANIZATION_MAX_DEPTH levels',
  ),
  403: problem(
    'The organization tree already has its quota of organizations, or (a root) the caller its quota of root organizations (ORGANIZATION_ROOTS_PER_SUB, default 25); code QUOTA_EXCEEDED',
  ),
  404: problem('`parentId` (or the token’s org) names no organization the caller may access'),
  409: problem('A request with the same Idempotency-Key is still running'),
};
const POLICY_POST_ERRORS = {
  ...POST_ERRORS,
  403: problem('The organization tree already has its quota of policies (code QUOTA_EXCEEDED)'),
  400: problem(
    'The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`, an unknown `coverageSlug` among them); a field the body does not have is listed as `is not a field of this request`, with `; did you mean "<field>"?` when one is within two edits; with `quoteId`, each quoted field sent again is listed by name',
  ),
  404: problem(
    '`organizationId` (or the token’s org) names no organization the caller may access; with `quoteId`, no such quote or one the caller may not access',
  ),
  409: problem(
    'The policy `number` is taken, or a request with the same Idempotency-Key is still running (code CONFLICT); the quote of `quoteId` is already issued or has expired (code INVALID_STATE)',
  ),
};

const POLICY_LIFECYCLE_ERRORS = {
  ...POST_ERRORS,
  400: problem(
    'The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`); a field the body does not have is listed as `is not a field of this request`, with `; did you mean "<field>"?` when one is within two edits',
  ),
  404: problem('No such policy, or the caller may not access it'),
  409: problem(
    'Code INVALID_STATE: the policy is not in a state for it (see the route), or `effectiveDate` is outside the term or before its latest transaction; or a request with the same Idempotency-Key is still running',
  ),
};

const QUOTE_POST_ERRORS = {
  ...POST_ERRORS,
  400: problem(
    'The body is not valid JSON, not an object, or breaks the policy create’s rules (at most 100 listed in `errors`); `number`, `cvc` or `internalID` sent (they belong to issuing) is listed by name, any other unknown field as `is not a field of this request` (with a "did you mean" when one is within two edits)',
  ),
  404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
  409: problem('A request with the same Idempotency-Key is still running'),
};

/**
 * Request bodies that succeed as they are. The policy and quote ones need the token's `org`, or
 * an `organizationId`: the REST reference page puts in the id of the organization its "Try it
 * out" created (developer-pages.ts), so that they run with the start-up banner's token too.
 */
const ORGANIZATION_EXAMPLE = {
  name: 'Paws & Claws',
  legalName: 'Paws & Claws LLC',
  legalType: 'llc',
  taxId: '12-3456789',
  email: 'billing@pawsandclaws.example',
  address: { line1: '1 Main St', city: 'Springfield', postal: '01101', country: 'US', suite: '4B' },
  bankAccounts: [{ nickname: 'operating', routing: '021000021', account: '000123456789' }],
  owners: [{ firstname: 'Rosa', lastname: 'Diaz', ownership: 60, taxId: '123-45-6789' }],
};
/** A change to the organization the create example made: every kind of merge at once. */
const ORGANIZATION_PATCH_EXAMPLE = {
  email: null,
  phone: '+1 413 555 0100',
  address: { line1: '200 Elm St', suite: null },
  owners: [
    { firstname: 'Rosa', lastname: 'Diaz', ownership: 50, taxId: '123-45-6789' },
    { firstname: 'Sam', lastname: 'Diaz', ownership: 50 },
  ],
};
/** A change to a webhook endpoint: another filter and description, and a rate limit. */
const WEBHOOK_ENDPOINT_PATCH_EXAMPLE = {
  events: ['policy.created', 'policy.cancelled'],
  description: 'policy feed for the data warehouse',
  rateLimitPerSecond: 50,
};
/** Issuing a quote: its id (this one is made up), and what issuing may add. */
const ISSUE_EXAMPLE = { quoteId: '0f9d4c52-2c1e-4b8e-9d4a-6f1c2b3a4d5e', internalID: 'ext-002', cvc: '123' };

/**
 * The policy examples' dates are set when the service starts (a term from that day for a year,
 * a cancellation a month in), so that the quote, the policy, its cancellation and its
 * reinstatement each succeed as written, whatever the day. The renewal's needs a policy in its
 * renewal window: the create's `renewable` example ends 30 days after that day (inside the
 * default 60-day window, and any window of 30 days or more).
 */
const EXAMPLE_START = todayUtc();
const QUOTE_EXAMPLE = {
  ownerFirstname: 'Rosa',
  ownerLastname: 'Diaz',
  petName: 'Biscuit',
  petDOB: '2022-05-01',
  effectiveDate: EXAMPLE_START,
  expirationDate: addDays(EXAMPLE_START, 365),
  coverageSlug: 'accident-illness-basic',
};
const POLICY_EXAMPLE = { internalID: 'ext-001', cvc: '123', ...QUOTE_EXAMPLE };
const CANCEL_EXAMPLE = { effectiveDate: addDays(EXAMPLE_START, 30), reason: 'insured_request' };
/** A new pet name and plan from the third billing date (after the example cancellation and its reinstatement, a month in). */
const CHANGE_EXAMPLE = {
  effectiveDate: addMonthsClamped(EXAMPLE_START, 2),
  petName: 'Biscuit Diaz',
  coverageSlug: 'accident-illness-plus',
};
const RENEWABLE_POLICY_EXAMPLE = {
  ...POLICY_EXAMPLE,
  internalID: 'ext-003',
  effectiveDate: addDays(EXAMPLE_START, -335),
  expirationDate: addDays(EXAMPLE_START, 30),
};
const RENEW_EXAMPLE = { coverageSlug: 'accident-illness-plus' };
/**
 * Two months paid ahead, then one of them paid back: the payment leaves a credit of one month's
 * premium (the example plan's 2,900) on the day the example policy starts, which the refund takes.
 */
const API_KEY_EXAMPLE = { name: 'nightly billing batch', scopes: ['policies:read', 'billing:write'], expiresInDays: 90 };
const PAYMENT_EXAMPLE = { amount: 5800, reference: 'pi_example_0001' };
const REFUND_EXAMPLE = { amount: 2900, reference: 're_example_0001' };

/** A payment's and a refund's errors (contract section 19). */
const PAYMENT_ERRORS = {
  ...POLICY_LIFECYCLE_ERRORS,
  409: problem(
    'Code CONFLICT: `reference` is already used by a payment or refund of this policy, or a request with the same Idempotency-Key is still running; code INVALID_STATE (a refund): the amount exceeds the credit balance',
  ),
};
const withExample = (schema: object, value: object, more: Record<string, object> = {}) => ({
  'application/json': {
    schema,
    examples: { typical: { value }, ...Object.fromEntries(Object.entries(more).map(([name, example]) => [name, { value: example }])) },
  },
});

/** POSTs accept an Idempotency-Key (spec section 7). */
const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description:
    'Makes retries safe: the first response (unless a 5xx) is kept for 24 hours and replayed to a repeat with the same ' +
    'body (with `Idempotent-Replayed: true`); another body gets 422, a repeat while the first runs gets 409.',
};
/** On a read or a change of an organization (contract section 15) or a policy (section 14, "Versions and ordering"). */
const etagHeader = {
  ETag: {
    description:
      'The record’s version, quoted (`"3"`). An organization’s: send it back as If-Match to change exactly that version. ' +
      'A policy’s: 1 at issue, +1 for each transaction',
    schema: { type: 'string' },
  },
};
const ifMatch = {
  name: 'If-Match',
  in: 'header',
  required: false,
  schema: { type: 'string', examples: ['"3"'] },
  description:
    'The ETag of the read the change was made against. Another version, a weak tag or anything malformed: 412 PRECONDITION_FAILED, nothing written. ' +
    'Without it the last write wins; `*` matches any version.',
};
const replayedHeader = {
  'Idempotent-Replayed': { description: '`true` when this is a kept response replayed for an Idempotency-Key', schema: { type: 'string' } },
};

const addressInput = {
  type: 'object',
  description: 'Every property is kept and returned, including ones not named here. Strings at most 255 characters.',
  properties: Object.fromEntries(['line1', 'line2', 'division', 'city', 'postal', 'country'].map((name) => [name, nullableString])),
  additionalProperties: true,
};

const policyNumberInPath = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
  description: 'Policy number; anything else answers 404',
};

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

/** A REST list page (spec section 10): `{ data, hasMore, nextCursor }`. */
function listSchema(item: string) {
  return {
    type: 'object',
    required: ['data', 'hasMore', 'nextCursor'],
    properties: {
      data: { type: 'array', items: ref(item) },
      hasMore: { type: 'boolean' },
      nextCursor: {
        type: ['string', 'null'],
        description:
          'Pass as `after` for the next page; null on the last. A status-filtered page may be short, even empty, and still have one',
      },
    },
    additionalProperties: false,
  };
}

function documentOf(method: RestRoute['method'], path: string): string {
  const route = REST_ROUTES.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route) throw new Error(`no REST route ${method} ${path}`);
  return route.document;
}

/** The OpenAPI 3.1 document, built once at start-up from the schema and the route documents. */
export function openApiDocument(schema: GraphQLSchema, version: string) {
  return withScopes(
    schema,
    withConsistencyTokens({
      openapi: '3.1.0',
      info: {
        title: 'Organization and Policy service: REST compatibility layer',
        version,
        description:
          'The four operations of the interface document, changing an organization, two lists (organizations, policies), quotes, events and webhook endpoints. Every route needs `Authorization: Bearer <JWT or API key>`. ' +
          'A record the caller may not access answers 404, exactly like a missing one. Errors are RFC 9457 problem details ' +
          'whose `code` equals the GraphQL `extensions.code`.',
      },
      servers: [{ url: '/' }],
      tags: [
        {
          name: 'Organizations',
          description: 'The organization hierarchy: a caller reaches its org and below, and what it created and below',
        },
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
        {
          name: 'Events',
          description: `What happened (${EVENT_TYPES.join(', ')}), kept 30 days, with the state of each webhook delivery`,
        },
        {
          name: 'Webhooks',
          description: "Endpoints that receive the events of an organization's whole subtree, signed the Standard Webhooks way",
        },
        {
          name: 'API keys',
          description:
            'Keys for servers (`opk_live_…`, `opk_test_…`), sent as `Authorization: Bearer <key>` on every route: each acts for one organization and its subtree, within its scopes. Made, rotated and revoked with a token only.',
        },
      ],
      security: [{ bearerAuth: [] }],
      paths: {
        '/api/v1/organization': {
          get: {
            operationId: 'listOrganizations',
            summary: 'List organizations: the children of parentId, or without it where the caller starts',
            description:
              'Without `parentId`: the organizations the caller may access whose parent it may not (a sub-only token finds the ' +
              'roots it created here). Oldest first, a page at a time: pass `nextCursor` as `after` while `hasMore`. With `q`: a search ' +
              'by legalName (typos forgiven) of every organization the caller may access, or of `organizationId`’s subtree, best ' +
              'match first, then newest (`parentId` cannot be combined with it).',
            tags: ['Organizations'],
            parameters: [
              {
                name: 'parentId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description: 'List its children',
              },
              SEARCH_PARAMETER,
              {
                name: 'organizationId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description: 'With `q`: search only this organization and its descendants',
              },
              ...PAGE_PARAMETERS,
            ],
            responses: {
              200: { description: 'A page', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json(ref('OrganizationList')) },
              404: problem('`parentId` names no organization the caller may access'),
              ...LIST_ERRORS,
            },
          },
          post: {
            operationId: 'createOrganization',
            summary: 'Create an organization with its address, bank accounts and owners (all or nothing)',
            parameters: [idempotencyKey],
            tags: ['Organizations'],
            requestBody: { required: true, content: withExample(ref('CreateOrganizationRequest'), ORGANIZATION_EXAMPLE) },
            responses: {
              200: {
                description: 'Created',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('OrganizationCreated')),
              },
              ...ORGANIZATION_POST_ERRORS,
            },
          },
        },
        '/api/v1/organization/{id}': {
          get: {
            operationId: 'getOrganization',
            summary: 'Read an organization the caller may access',
            tags: ['Organizations'],
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: 'Organization id' },
            ],
            responses: {
              200: {
                description: 'Found',
                headers: { ...requestIdHeader, ...etagHeader, ...rateLimitHeaders },
                content: json(ref('Organization')),
              },
              404: problem('No such organization, or the caller may not access it'),
              ...ERRORS,
            },
          },
          patch: {
            operationId: 'updateOrganization',
            summary: 'Change an organization: a JSON merge patch (RFC 7396), guarded by If-Match',
            description:
              'The body is a merge patch of the create’s fields (see UpdateOrganizationRequest), sent as `application/merge-patch+json` ' +
              'or `application/json`. Answers the organization as the create does, with its new `version` (also the `ETag`). A patch that ' +
              'changes nothing answers 200 with the same version and records nothing; any other records an `organization.updated` ' +
              'event with `previousAttributes` (the changed fields’ earlier values, masked as reads mask them). Bank account numbers ' +
              'and owner tax ids sent are stored encrypted, answered as last fours.',
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: 'Organization id' },
              ifMatch,
              idempotencyKey,
            ],
            tags: ['Organizations'],
            requestBody: {
              required: true,
              content: {
                'application/merge-patch+json': {
                  schema: ref('UpdateOrganizationRequest'),
                  examples: { typical: { value: ORGANIZATION_PATCH_EXAMPLE } },
                },
                'application/json': {
                  schema: ref('UpdateOrganizationRequest'),
                  examples: { typical: { value: ORGANIZATION_PATCH_EXAMPLE } },
                },
              },
            },
            responses: {
              200: {
                description: 'Changed (or nothing to change)',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('OrganizationCreated')),
              },
              ...POST_ERRORS,
              400: problem(
                'The body is not valid JSON, not an object, or the organization it would make breaks the rules (all listed in `errors`, at most 100); `id` or `parentId` sent is listed by name',
              ),
              404: problem('No such organization, or the caller may not access it'),
              409: problem('A request with the same Idempotency-Key is still running'),
              412: problem(
                'If-Match names another version than the organization’s, or is malformed (code PRECONDITION_FAILED); nothing was written',
              ),
              415: problem('The body is neither application/merge-patch+json nor application/json, or not UTF-8'),
            },
          },
        },
        '/api/v1/policy': {
          get: {
            operationId: 'listPolicies',
            summary: 'List the policies of an organization, or of its whole subtree; or find policies by internalID',
            description:
              'The policies of `organizationId` (default: the token’s org), or with `includeDescendants=true` those of it and ' +
              'every organization below it. With `internalID` instead: the policies created with that internalID (exact) among ' +
              'every policy the caller may access, wherever they are (one out of reach is not listed; none found is an empty page); ' +
              '`organizationId`, `includeDescendants` and `q` cannot be combined with it (400). With `q`: a search of every policy ' +
              'the caller may access, or of `organizationId`’s subtree, by owner name, pet name and internalID (typos forgiven), and ' +
              'a `q` of digits by number (that policy first); best match first, then newest (`includeDescendants` cannot be combined with it). ' +
              'Otherwise oldest first. A page at a time: pass `nextCursor` as `after` while `hasMore`. The filters (`status`, ' +
              '`coverageSlug`, `billingStatus`, `effectiveFrom`, `effectiveTo`) combine with AND, on a list, by internalID and in a search. ' +
              `With a filter, or a search outside the top of a tree, a page walks at most ${STATUS_FILTER_WALK} policies: it may come back short, even empty, ` +
              `with \`hasMore\` true and a \`nextCursor\` past it; keep following \`nextCursor\` while \`hasMore\`.`,
            tags: ['Policies'],
            parameters: [
              {
                name: 'organizationId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description:
                  'Whose policies; without it, the token’s org (a token without one must send it). With `q`: search only its subtree',
              },
              {
                name: 'includeDescendants',
                in: 'query',
                required: false,
                schema: { type: 'boolean', default: false },
                description: 'Also every descendant’s policies',
              },
              {
                name: 'internalID',
                in: 'query',
                required: false,
                schema: { type: 'string' },
                description:
                  'Find by the integrator’s own key (exact), among every policy the caller may access; alone (with `limit` and `after`)',
              },
              SEARCH_PARAMETER,
              ...POLICY_FILTER_PARAMETERS,
              ...PAGE_PARAMETERS,
            ],
            responses: {
              200: { description: 'A page', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json(ref('PolicyList')) },
              404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
              ...LIST_ERRORS,
            },
          },
          post: {
            operationId: 'createPolicy',
            summary: 'Create a policy with its coverage snapshot and premium schedule (all or nothing), or issue a quote',
            description:
              'With `quoteId` (and optionally `number`, `cvc`, `internalID`), issues that open quote: the policy’s fields, coverage ' +
              'and charges are the quote’s, at the quoted price even if the catalog has changed since; the quote then reads `issued` ' +
              'with its `policyNumber`. Sending a quoted field again is 400 naming it; a quote already issued or expired is 409 `INVALID_STATE`.' +
              ' The organization is `organizationId`, else the token’s `org` claim; with neither, 400 (the start-up banner’s token has no claim: on /api/v1/docs, run the organization create first and this example carries its id).',
            parameters: [idempotencyKey],
            tags: ['Policies'],
            requestBody: {
              required: true,
              content: withExample(ref('CreatePolicyRequest'), POLICY_EXAMPLE, {
                issueQuote: ISSUE_EXAMPLE,
                renewable: RENEWABLE_POLICY_EXAMPLE,
              }),
            },
            responses: {
              200: {
                description: 'Created',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('PolicyCreated')),
              },
              ...POLICY_POST_ERRORS,
            },
          },
        },
        '/api/v1/policy/{id}': {
          get: {
            operationId: 'getPolicy',
            summary: 'Read a policy of an organization the caller may access',
            tags: ['Policies'],
            parameters: [policyNumberInPath],
            responses: {
              200: {
                description: 'Found',
                headers: { ...requestIdHeader, ...etagHeader, ...rateLimitHeaders },
                content: json(ref('Policy')),
              },
              404: problem('No such policy, or the caller may not access it'),
              ...ERRORS,
            },
          },
        },
        '/api/v1/policy/{id}/transactions': {
          get: {
            operationId: 'listPolicyTransactions',
            summary: 'List the transactions of a policy, oldest first',
            description:
              `Each step in the policy’s life (${TRANSACTION_TYPES.join(', ')}) with the day it takes effect, ` +
              'who made it and the fields it changed. Every charge names its transaction (`transactionId`). Pass `nextCursor` as `after` while `hasMore`.',
            tags: ['Policies'],
            parameters: [policyNumberInPath, ...PAGE_PARAMETERS],
            responses: {
              200: {
                description: 'A page',
                headers: { ...requestIdHeader, ...rateLimitHeaders },
                content: json(ref('PolicyTransactionList')),
              },
              404: problem('No such policy, or the caller may not access it'),
              ...LIST_ERRORS,
            },
          },
        },
        '/api/v1/policy/{id}/changes': {
          post: {
            operationId: 'changePolicy',
            summary: 'Change the pet’s or the owner’s fields, or the plan, from effectiveDate',
            description:
              'One `change` transaction whose `changes` name each field that differs from the value in effect on `effectiveDate` as ' +
              '`{ from, to }` (a field sent with the value it has is left out; with nothing left, 400). At least one of `petName`, ' +
              '`petDOB`, `ownerFirstname`, `ownerLastname`, `ownerDOB`, `coverageSlug`, with the create’s rules (`petDOB` not after the ' +
              'policy’s effectiveDate); none null. A new plan (at today’s catalog price) takes effect on a billing date, the start of a ' +
              'schedule period (else 400 on `effectiveDate`): for every period `P` from then, a `credit` of `-net(P)` and a `premium` at ' +
              'the new plan’s price for `P` (section 5’s rule). Reads show the fields and the coverage in effect today (UTC): a change ' +
              'dated in the future shows from its date. 409 INVALID_STATE when the policy is cancelled, has a cancellation scheduled, ' +
              'or has expired. Records a `policy.changed` event.',
            parameters: [policyNumberInPath, idempotencyKey],
            tags: ['Policies'],
            requestBody: {
              required: true,
              content: withExample(ref('ChangePolicyRequest'), CHANGE_EXAMPLE),
            },
            responses: {
              200: {
                description: 'Changed (or scheduled to be)',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('Policy')),
              },
              ...POLICY_LIFECYCLE_ERRORS,
            },
          },
        },
        '/api/v1/policy/{id}/cancellation': {
          post: {
            operationId: 'cancelPolicy',
            summary: 'Cancel a policy from effectiveDate (also a date in the future), crediting what is left of its premiums',
            description:
              'One `cancellation` transaction owning, for every schedule period `[s, e)` still running on `effectiveDate`, a `credit` of ' +
              '`-round(net × days(max(effectiveDate, s), e) ÷ days(s, e))` over `[max(effectiveDate, s), e)` (`net`: the sum of the ' +
              'charges of exactly that period; round: half up on the absolute value). `method` is `flat` for `free_look` (every period ' +
              'credited in full; only within POLICY_FREE_LOOK_DAYS, default 15, of the policy’s effectiveDate, else 400 on `reason`), ' +
              '`short_rate` for `insured_request` (plus a `fee` of POLICY_SHORT_RATE_PERCENT, default 10, of the credits, due on ' +
              '`effectiveDate`), `pro_rata` otherwise. `status` is `cancelled` from `effectiveDate`. 409 INVALID_STATE when the ' +
              'policy is cancelled, has a cancellation scheduled, or has expired. Records a `policy.cancelled` event.',
            parameters: [policyNumberInPath, idempotencyKey],
            tags: ['Policies'],
            requestBody: {
              required: true,
              content: withExample(ref('CancelPolicyRequest'), CANCEL_EXAMPLE),
            },
            responses: {
              200: {
                description: 'Cancelled (or scheduled to be)',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('Policy')),
              },
              ...POLICY_LIFECYCLE_ERRORS,
            },
          },
        },
        '/api/v1/policy/{id}/reinstatement': {
          post: {
            operationId: 'reinstatePolicy',
            summary: 'Undo the policy’s cancellation',
            description:
              'One `reinstatement` transaction owning a `reversal` of each charge of the cancellation (`reverses`: its id; the opposite ' +
              'amount): afterwards `cancellation` is null and the charges sum to what they did before it. Only while the cancellation ' +
              'lies in the future or took effect at most POLICY_REINSTATEMENT_DAYS (default 30) ago, and not for `fraud`; else (or ' +
              'without a cancellation) 409 INVALID_STATE. Records a `policy.reinstated` event.',
            parameters: [policyNumberInPath, idempotencyKey],
            tags: ['Policies'],
            requestBody: { required: true, content: withExample(ref('ReinstatePolicyRequest'), {}) },
            responses: {
              200: {
                description: 'Reinstated',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('Policy')),
              },
              ...POLICY_LIFECYCLE_ERRORS,
            },
          },
        },
        '/api/v1/policy/{id}/payments': {
          post: {
            operationId: 'recordPayment',
            summary: 'Record money received for a policy',
            description:
              'The integrator collects premiums through its own payment provider and records each payment here (contract section ' +
              '19): `amount` in cents (1 to 100,000,000), `reference` the provider’s id (1-100 printable characters, unique among ' +
              'the policy’s payments and refunds: 409 CONFLICT), `receivedOn` not in the future (default today, UTC). Accepted in ' +
              'every status. `billing.paid` rises by the amount and the version by one. Records a `policy.payment_recorded` event.',
            parameters: [policyNumberInPath, idempotencyKey],
            tags: ['Billing'],
            requestBody: { required: true, content: withExample(ref('RecordPaymentRequest'), PAYMENT_EXAMPLE) },
            responses: {
              200: {
                description: 'Recorded: the policy, with its billing summary',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('Policy')),
              },
              ...PAYMENT_ERRORS,
            },
          },
          get: {
            operationId: 'listPolicyPayments',
            summary: 'List the payments and refunds of a policy, oldest first',
            description:
              'Both kinds in the order they were recorded (`type`: payment or refund). Pass `nextCursor` as `after` while `hasMore`.',
            tags: ['Billing'],
            parameters: [policyNumberInPath, ...PAGE_PARAMETERS],
            responses: {
              200: {
                description: 'A page',
                headers: { ...requestIdHeader, ...rateLimitHeaders },
                content: json(ref('PolicyPaymentList')),
              },
              404: problem('No such policy, or the caller may not access it'),
              ...LIST_ERRORS,
            },
          },
        },
        '/api/v1/policy/{id}/refunds': {
          post: {
            operationId: 'recordRefund',
            summary: 'Record money paid back to the policyholder',
            description:
              'At most the credit balance when recorded (`-billing.balance` when negative: paid more than billed, e.g. after a ' +
              'cancellation’s credits), else 409 INVALID_STATE; refunds racing on one policy are judged one after the other, so ' +
              'together they never exceed it. `amount` in cents (1 to 100,000,000), `reference` unique among the policy’s payments ' +
              'and refunds (409 CONFLICT), `paidOn` not in the future (default today, UTC). Records a `policy.refund_recorded` event.',
            parameters: [policyNumberInPath, idempotencyKey],
            tags: ['Billing'],
            requestBody: { required: true, content: withExample(ref('RecordRefundRequest'), REFUND_EXAMPLE) },
            responses: {
              200: {
                description: 'Recorded: the policy, with its billing summary',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('Policy')),
              },
              ...PAYMENT_ERRORS,
            },
          },
        },
        '/api/v1/policy/{id}/renewal': {
          post: {
            operationId: 'renewPolicy',
            summary: 'Renew a policy: a successor for the next year, answered as the new policy',
            description:
              'A new policy (`number` as sent, with the create’s rules and its 409 CONFLICT when taken, else assigned) in the same ' +
              'organization with the same owner and pet fields, from the old `expirationDate` for one year (Feb 29 → Feb 28), on ' +
              '`coverageSlug` (400 when not in the catalog) or the old policy’s current plan, priced at today’s catalog price ' +
              '(contract section 5’s schedule). Its first transaction is a `renewal` owning its premiums. Allowed from ' +
              'POLICY_RENEWAL_WINDOW_DAYS (default 60) before the old `expirationDate` until POLICY_RENEWAL_LATE_DAYS (default 30) after it, for a ' +
              'policy that is not cancelled, has no cancellation scheduled and was not renewed; else 409 INVALID_STATE (before the ' +
              'window, the message says when it opens; after it, when it closed). Both policies then show the link: `renewalOf` on the new one, `renewedBy` ' +
              'on the old one. Records a `policy.renewed` event whose object is the new policy (no `policy.created`).',
            parameters: [policyNumberInPath, idempotencyKey],
            tags: ['Policies'],
            requestBody: { required: true, content: withExample(ref('RenewPolicyRequest'), RENEW_EXAMPLE, { currentPlan: {} }) },
            responses: {
              200: {
                description: 'Renewed: the new policy',
                headers: { ...requestIdHeader, ...etagHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('Policy')),
              },
              ...POLICY_LIFECYCLE_ERRORS,
              403: problem('The organization tree already has its quota of policies: the successor is one more (code QUOTA_EXCEEDED)'),
              409: problem(
                'Code INVALID_STATE: before the renewal window, cancelled or with a cancellation scheduled, or already renewed; code CONFLICT: `number` is taken, or a request with the same Idempotency-Key is still running',
              ),
            },
          },
        },
        '/api/v1/quote': {
          post: {
            operationId: 'createQuote',
            summary: 'Quote a policy: the plan as it is now and the premium schedule issuing would write, kept with the quote',
            description:
              'The policy create’s body without `number`, `cvc` and `internalID`, under the same rules. `charges` is the schedule a ' +
              'policy with this body gets (without ids), `totalPremium` their sum. The quote is `open` until `expiresAt` ' +
              '(creation + QUOTE_VALID_DAYS, default 30), then `expired`; `issued` once a policy is made from it. Records a ' +
              '`quote.created` event.' +
              ' The organization is `organizationId`, else the token’s `org` claim; with neither, 400 (the start-up banner’s token has no claim: on /api/v1/docs, run the organization create first and this example carries its id).',
            parameters: [idempotencyKey],
            tags: ['Quotes'],
            requestBody: { required: true, content: withExample(ref('CreateQuoteRequest'), QUOTE_EXAMPLE) },
            responses: {
              200: {
                description: 'Quoted',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('Quote')),
              },
              ...QUOTE_POST_ERRORS,
            },
          },
        },
        '/api/v1/quote/{id}': {
          get: {
            operationId: 'getQuote',
            summary: 'Read a quote of an organization the caller may access, with its status as of now',
            tags: ['Quotes'],
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: 'Quote id' }],
            responses: {
              200: { description: 'Found', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json(ref('Quote')) },
              404: problem('No such quote, or the caller may not access it'),
              ...ERRORS,
            },
          },
        },
        '/api/v1/events': {
          get: {
            operationId: 'listEvents',
            summary: 'List the events the caller may access, oldest first, each with the state of its deliveries',
            description:
              'With `organizationId`, the events of that organization and every descendant. Pass `nextCursor` as `after` while `hasMore`. ' +
              'Each event carries `actor` (`{ sub }` of the caller whose request made it) and `apiVersion`, and its `deliveries` (at most 25, to endpoints the caller may access) as `GET /api/v1/events/{id}` shows them.',
            tags: ['Events'],
            parameters: [
              {
                name: 'organizationId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description: "Only this organization's subtree",
              },
              {
                name: 'type',
                in: 'query',
                required: false,
                schema: { type: 'string' },
                description: 'Comma-separated event types, e.g. `policy.created`',
              },
              ...PAGE_PARAMETERS,
            ],
            responses: {
              200: { description: 'A page', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json(ref('EventList')) },
              404: problem('`organizationId` names no organization the caller may access'),
              ...LIST_ERRORS,
            },
          },
        },
        '/api/v1/events/{id}': {
          get: {
            operationId: 'getEvent',
            summary: 'Read an event with the state of its deliveries',
            tags: ['Events'],
            parameters: [idParameter],
            responses: {
              200: { description: 'Found', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json(ref('Event')) },
              404: problem('No such event, or the caller may not access it'),
              ...ERRORS,
            },
          },
        },
        '/api/v1/webhook-endpoints': {
          get: {
            operationId: 'listWebhookEndpoints',
            summary: 'List the webhook endpoints registered on an organization',
            tags: ['Webhooks'],
            parameters: [
              {
                name: 'organizationId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description: 'Default: the token’s org',
              },
              ...PAGE_PARAMETERS,
            ],
            responses: {
              200: {
                description: 'A page',
                headers: { ...requestIdHeader, ...rateLimitHeaders },
                content: json(ref('WebhookEndpointList')),
              },
              404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
              ...LIST_ERRORS,
            },
          },
          post: {
            operationId: 'createWebhookEndpoint',
            summary: "Register an endpoint for the events of an organization's whole subtree; the secret is shown only here",
            tags: ['Webhooks'],
            parameters: [idempotencyKey],
            requestBody: { required: true, content: json(ref('CreateWebhookEndpointRequest')) },
            responses: {
              200: {
                description: 'Created',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('WebhookEndpointCreated')),
              },
              ...POST_ERRORS,
              400: problem('The body breaks the rules, or the URL is not allowed (in production: https to a public address)'),
              403: problem(
                'The organization tree already has its quota of webhook endpoints (WEBHOOK_ENDPOINTS_PER_TREE, default 25; code QUOTA_EXCEEDED)',
              ),
              409: problem('A request with the same Idempotency-Key is still running'),
              404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
            },
          },
        },
        '/api/v1/webhook-endpoints/{id}': {
          get: readById(
            'getWebhookEndpoint',
            'Read a webhook endpoint (never its secret)',
            'Webhooks',
            'WebhookEndpoint',
            'No such endpoint, or the caller may not access it',
          ),
          patch: {
            operationId: 'updateWebhookEndpoint',
            summary: 'Change a webhook endpoint: a JSON merge patch (RFC 7396); disable it, or enable it again',
            description:
              'The body is a merge patch (see UpdateWebhookEndpointRequest), sent as `application/merge-patch+json` or `application/json`. ' +
              'Answers the endpoint as its read does. `enabled: false` disables it (`status: disabled`, `disabledReason: "disabled by request"`): ' +
              'events made while it is disabled are not delivered to it, and its pending deliveries fail. `enabled: true` makes it active again ' +
              'and clears its back-off; it then receives new events only. `rateLimitPerSecond`: the receiver never gets more deliveries than that ' +
              'within any second (those over it wait, and their `nextAttemptAt` says until when); null removes the limit. ' +
              'An endpoint has no version: If-Match other than `*` is 412.',
            tags: ['Webhooks'],
            parameters: [idParameter, idempotencyKey],
            requestBody: {
              required: true,
              content: {
                'application/merge-patch+json': {
                  schema: ref('UpdateWebhookEndpointRequest'),
                  examples: { typical: { value: WEBHOOK_ENDPOINT_PATCH_EXAMPLE } },
                },
                'application/json': {
                  schema: ref('UpdateWebhookEndpointRequest'),
                  examples: { typical: { value: WEBHOOK_ENDPOINT_PATCH_EXAMPLE } },
                },
              },
            },
            responses: {
              200: {
                description: 'Changed (or nothing to change)',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('WebhookEndpoint')),
              },
              ...POST_ERRORS,
              400: problem(
                'The body is not valid JSON, not an object, or breaks the rules (all listed in `errors`, at most 100): the URL is not allowed (in production: https to a public address), `url` or `enabled` is null, `rateLimitPerSecond` is not 1–1,000; `id` or `organizationId` sent is listed by name, any other unknown field as `is not a field of this request` (with a "did you mean" when one is within two edits)',
              ),
              404: problem('No such endpoint, or the caller may not access it'),
              409: problem('A request with the same Idempotency-Key is still running'),
              412: problem('If-Match was sent with an entity tag: an endpoint has none (code PRECONDITION_FAILED); nothing was written'),
              415: problem('The body is neither application/merge-patch+json nor application/json, or not UTF-8'),
            },
          },
          delete: deleteById(
            'deleteWebhookEndpoint',
            'Delete a webhook endpoint: it receives nothing more',
            'Webhooks',
            'Deleted',
            'No such endpoint, or the caller may not access it',
          ),
        },
        '/api/v1/webhook-endpoints/{id}/secret-rotation': {
          post: {
            operationId: 'rotateWebhookEndpointSecret',
            summary: 'A new signing secret, shown only in this answer; the old one signs beside it until `graceSeconds` have passed',
            description:
              'Until the grace ends every delivery to the endpoint carries both signatures in `webhook-signature`, `v1,<with the new> v1,<with the old>` (Standard Webhooks): a receiver verifying with either secret keeps working while it changes over. A second rotation within the grace replaces the kept secret.',
            tags: ['Webhooks'],
            parameters: [idParameter, idempotencyKey],
            requestBody: { required: true, content: json({ ...ref('RotateWebhookSecretRequest'), example: { graceSeconds: 3600 } }) },
            responses: {
              200: {
                description: 'Rotated: the new secret',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('WebhookSecret')),
              },
              ...POST_ERRORS,
              404: problem('No such endpoint, or the caller may not access it'),
              409: problem('A request with the same Idempotency-Key is still running'),
            },
          },
        },
        '/api/v1/webhook-endpoints/{id}/attempts': {
          get: {
            operationId: 'listWebhookAttempts',
            summary: "List a webhook endpoint's delivery attempts, newest first",
            description:
              'Every POST made to the endpoint (contract section 22), in the order they were recorded, newest first: the event and ' +
              'delivery it was for, the attempt number, when it began and how long it took, the HTTP status (null when no answer ' +
              'came), why no answer came (`error`: timeout, connection_refused, connection_reset, dns, tls, refused_address; else ' +
              'null) and the first 4 KB of the answer as text (4,096 bytes, cut on a UTF-8 boundary). Kept as long as the events ' +
              '(EVENT_RETENTION_SECONDS, 30 days). Pass `nextCursor` as `after` while `hasMore`.',
            tags: ['Webhooks'],
            parameters: [idParameter, ...PAGE_PARAMETERS],
            responses: {
              200: {
                description: 'A page',
                headers: { ...requestIdHeader, ...rateLimitHeaders },
                content: json(ref('WebhookAttemptList')),
              },
              404: problem('No such endpoint, or the caller may not access it'),
              ...LIST_ERRORS,
            },
          },
        },
        '/api/v1/webhook-endpoints/{id}/test': {
          post: {
            operationId: 'sendTestWebhook',
            summary: 'Send a `webhook.test` event to this endpoint only',
            description:
              'The event (`data.object`: `{ "endpointId" }`) is kept out of event lists and goes to no other endpoint; `GET /api/v1/events/{eventId}` ' +
              'reads it with its delivery, and the endpoint’s attempts show each POST. Its first attempt is made at once, even while the ' +
              'endpoint is backed off after failures: a success ends the back-off. A disabled endpoint is 409: enable it first.',
            tags: ['Webhooks'],
            parameters: [idParameter, idempotencyKey],
            requestBody: { required: false, content: json({ ...ref('SendTestWebhookRequest'), example: {} }) },
            responses: {
              200: {
                description: 'Sent: the event and its delivery',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('SentTestWebhook')),
              },
              ...POST_ERRORS,
              404: problem('No such endpoint, or the caller may not access it'),
              409: problem('The endpoint is disabled (`INVALID_STATE`), or a request with the same Idempotency-Key is still running'),
            },
          },
        },
        '/api/v1/events/{id}/redeliveries': {
          post: {
            operationId: 'redeliverEvent',
            summary: 'Deliver an event once more to one endpoint',
            description:
              'A new delivery of the event to `endpointId`, with attempts of its own (the first at once, even while the endpoint is backed ' +
              'off). The endpoint must be one of the caller’s that receives the event: registered on its organization or above it, its ' +
              '`events` admitting the type (a test event: only the endpoint it was sent to); else 400 on `endpointId`.',
            tags: ['Webhooks'],
            parameters: [idParameter, idempotencyKey],
            requestBody: {
              required: true,
              content: json({ ...ref('RedeliverEventRequest'), example: { endpointId: '0b8e6f8e-2d55-4f4b-9a55-4c0d7c1c2f10' } }),
            },
            responses: {
              200: {
                description: 'Queued: the new delivery',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('WebhookDelivery')),
              },
              ...POST_ERRORS,
              404: problem('No such event, or the caller may not access it'),
              409: problem('The endpoint is disabled (`INVALID_STATE`), or a request with the same Idempotency-Key is still running'),
            },
          },
        },
        '/api/v1/webhook-endpoints/{id}/recovery': {
          post: {
            operationId: 'recoverWebhookEndpoint',
            summary: 'Deliver again every event since a time that the endpoint should have received and did not',
            description:
              'Every event of the endpoint’s subtree since `since` (at most 30 days ago), made after the endpoint was registered and of ' +
              'a type it receives, whose delivery to it failed or was skipped while it was disabled, is queued again, once each: an event ' +
              'with a pending or delivered delivery is not. Two recoveries at once queue each event once between them. The deliveries ' +
              'wait with the endpoint’s back-off and its rate limit. A disabled endpoint is 409: enable it first.',
            tags: ['Webhooks'],
            parameters: [idParameter, idempotencyKey],
            requestBody: {
              required: true,
              content: json({ ...ref('RecoverWebhookEndpointRequest'), example: { since: '2026-11-27T09:00:00Z' } }),
            },
            responses: {
              200: {
                description: 'Queued: how many events',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('WebhookRecovery')),
              },
              ...POST_ERRORS,
              404: problem('No such endpoint, or the caller may not access it'),
              409: problem('The endpoint is disabled (`INVALID_STATE`), or a request with the same Idempotency-Key is still running'),
            },
          },
        },
        '/api/v1/api-keys': {
          get: {
            operationId: 'listApiKeys',
            summary: "List an organization's unrevoked API keys (never the keys themselves)",
            tags: ['API keys'],
            parameters: [
              {
                name: 'organizationId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description: 'Default: the token’s org',
              },
              ...PAGE_PARAMETERS,
            ],
            responses: {
              200: { description: 'A page', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json(ref('ApiKeyList')) },
              404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
              ...LIST_ERRORS,
            },
          },
          post: {
            operationId: 'createApiKey',
            summary: 'Make an API key for an organization; the key is shown only in this answer',
            tags: ['API keys'],
            parameters: [idempotencyKey],
            requestBody: { required: true, content: json({ ...ref('CreateApiKeyRequest'), example: API_KEY_EXAMPLE }) },
            responses: {
              200: {
                description: 'Created',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('ApiKeyCreated')),
              },
              ...POST_ERRORS,
              404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
              409: problem(
                'A request with the same Idempotency-Key is still running, or already made its key: the key was shown once and is stored nowhere, so the problem names the key to revoke (code CONFLICT)',
              ),
            },
          },
        },
        '/api/v1/api-keys/{id}': {
          get: readById(
            'getApiKey',
            'Read an API key (never the key itself)',
            'API keys',
            'ApiKey',
            'No such unrevoked key, or the caller may not access it',
          ),
          delete: deleteById(
            'revokeApiKey',
            'Revoke an API key: every instance refuses it within 2 seconds',
            'API keys',
            'Revoked',
            'No such unrevoked key, or the caller may not access it',
          ),
        },
        '/api/v1/api-keys/{id}/rotation': {
          post: {
            operationId: 'rotateApiKey',
            summary:
              'A new key in place of this one (same name, organization, scopes and lifetime); the old one works for `graceSeconds` more',
            tags: ['API keys'],
            parameters: [idParameter, idempotencyKey],
            requestBody: { required: true, content: json({ ...ref('RotateApiKeyRequest'), example: { graceSeconds: 3600 } }) },
            responses: {
              200: {
                description: 'Rotated: the new key',
                headers: { ...requestIdHeader, ...replayedHeader, ...rateLimitHeaders },
                content: json(ref('ApiKeyCreated')),
              },
              ...POST_ERRORS,
              404: problem('No such unrevoked, unexpired key, or the caller may not access it'),
              409: problem('A request with the same Idempotency-Key is still running, or already rotated the key (code CONFLICT)'),
            },
          },
        },
        '/api/v1/audit-log': {
          get: {
            operationId: 'listAuditLog',
            summary: "List the audit entries of an organization's subtree, newest first",
            description:
              "Every successful write appends one entry in its own transaction (contract section 21). `organizationId` defaults to the token's org. " +
              'An entry has `hash` once sealed (within seconds). Pass `nextCursor` as `after` while `hasMore`.',
            tags: ['Audit log'],
            parameters: [
              {
                name: 'organizationId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description: "Whose subtree; default the token's org",
              },
              {
                name: 'action',
                in: 'query',
                required: false,
                schema: { type: 'string' },
                description: 'Comma-separated actions, e.g. `policy.cancel,policy.reinstate`',
              },
              {
                name: 'actorSub',
                in: 'query',
                required: false,
                schema: { type: 'string' },
                description: "Only this actor's entries (its `sub`, e.g. `apikey:<id>`, `system`)",
              },
              {
                name: 'since',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'date-time' },
                description: 'Entries at or after (RFC 3339)',
              },
              {
                name: 'until',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'date-time' },
                description: 'Entries before (RFC 3339)',
              },
              ...PAGE_PARAMETERS,
            ],
            responses: {
              200: { description: 'A page', headers: { ...requestIdHeader, ...rateLimitHeaders }, content: json(ref('AuditEntryList')) },
              404: problem('`organizationId` names no organization the caller may access'),
              ...LIST_ERRORS,
            },
          },
        },
        '/api/v1/audit-log/export': {
          get: {
            operationId: 'exportAuditLog',
            'x-api-key-scopes': [EXPORT_SCOPE],
            summary: "Stream the audit entries of an organization's subtree, oldest first, as NDJSON",
            description:
              'One entry a line, in constant memory whatever the range; each line also carries `position` and `prevHash`, so that the chain can be checked offline (docs/decisions.md, "The audit log").\n\nAn API key needs the scope `audit:read`.',
            tags: ['Audit log'],
            parameters: [
              {
                name: 'organizationId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description: "Whose subtree; default the token's org",
              },
              {
                name: 'since',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'date-time' },
                description: 'Entries at or after (RFC 3339)',
              },
              {
                name: 'until',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'date-time' },
                description: 'Entries before (RFC 3339)',
              },
            ],
            responses: {
              200: {
                description: 'The entries, one JSON object a line',
                headers: { ...requestIdHeader, ...rateLimitHeaders },
                content: { 'application/x-ndjson': { schema: { type: 'string' } } },
              },
              400: problem('`since` or `until` is not RFC 3339, or no `organizationId` and no org claim'),
              404: problem('`organizationId` names no organization the caller may access'),
              403: problem('An API key needs the scope `audit:read` (code FORBIDDEN, naming the scope)'),
              ...ERRORS,
            },
          },
        },
        '/api/v1/audit-log/verify': {
          get: {
            operationId: 'verifyAuditLog',
            summary: "Check a root organization's audit chain",
            description:
              'Walks the sealed entries of the tree in chain order: `ok` false names the first entry whose chain breaks (changed, after a removed one, or out of order). Entries not sealed yet (the last seconds) are not checked.',
            tags: ['Audit log'],
            parameters: [
              {
                name: 'organizationId',
                in: 'query',
                required: false,
                schema: { type: 'string', format: 'uuid' },
                description: "A root organization; default the token's org",
              },
            ],
            responses: {
              200: {
                description: 'Checked',
                headers: { ...requestIdHeader, ...rateLimitHeaders },
                content: json(ref('AuditVerification')),
              },
              400: problem('`organizationId` is not a root organization, or is missing with no org claim'),
              404: problem('`organizationId` names no organization the caller may access'),
              ...ERRORS,
            },
          },
        },
      },
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
          Problem: {
            type: 'object',
            required: ['type', 'title', 'status', 'detail', 'code'],
            properties: {
              type: { type: 'string', const: 'about:blank' },
              title: { type: 'string' },
              status: { type: 'integer' },
              detail: { type: 'string' },
              code: {
                type: 'string',
                // The error table (errors/errors.ts), so a new code cannot be missing here.
                enum: Object.keys(ERROR_STATUS),
              },
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
          },
          AddressInput: addressInput,
          Address: { ...addressInput, description: 'As sent: the named properties that were given, and every other one.' },
          CreateOrganizationRequest: {
            ...requestSchema(schema, 'CreateOrganizationInput', OVERLAYS, 'open'),
            description:
              'Strings at most 255 characters (description 2,000, descriptor 22); required strings not blank; email valid; ' +
              'logo and website absolute http(s) URLs; phone 7–20 of digits, spaces and +-(). ; at most 10 bank accounts and ' +
              '25 owners whose ownership adds up to at most 100. Unknown properties are accepted and ignored (the interface document allows them).',
          },
          OrganizationCreated: responseSchema(schema, documentOf('POST', '/api/v1/organization'), OVERLAYS),
          UpdateOrganizationRequest: {
            ...requestSchema(schema, 'UpdateOrganizationInput', OVERLAYS, 'open'),
            not: { anyOf: [{ required: ['id'] }, { required: ['parentId'] }] },
            description:
              'A JSON merge patch (RFC 7396) of the create’s fields: an absent field is kept, null removes an optional one (`name` goes back to ' +
              '`legalName`; `legalName`, `legalType` and `taxId` cannot be removed), `address` is merged property by property (null removes ' +
              'a property), `bankAccounts` and `owners` are replaced whole (null or [] removes them all). `id` and `parentId` are refused ' +
              '(400 naming them). The result follows every rule of the create, all errors listed at once. Other unknown properties are ignored.',
          },
          Organization: responseSchema(schema, documentOf('GET', '/api/v1/organization/:id'), OVERLAYS),
          OrganizationList: listSchema('Organization'),
          CreatePolicyRequest: {
            ...requestSchema(schema, 'CreatePolicyInput', OVERLAYS, 'closed'),
            // A new policy's body, or a quote to issue: GraphQL cannot say "required unless quoteId".
            oneOf: [
              { required: [...REQUIRED_UNLESS_QUOTED], not: { required: ['quoteId'] } },
              { required: ['quoteId'], not: { anyOf: QUOTED_FIELDS.map((field) => ({ required: [field] })) } },
            ],
            description:
              'Either a new policy (its required fields, no `quoteId`) or a quote to issue (`quoteId`, optionally `number`, `cvc` ' +
              'and `internalID`, and none of the quoted fields). Dates are real calendar dates; expirationDate after effectiveDate and at most 5 years later; ownerDOB and petDOB ' +
              'not in the future, petDOB not after effectiveDate. An unknown property is 400, listed with the other errors as `is not a field of this request`, with `; did you mean "<field>"?` when a field is within two edits of it. Without `organizationId` the policy goes to the token’s org.',
          },
          PolicyCreated: responseSchema(schema, documentOf('POST', '/api/v1/policy'), OVERLAYS),
          Policy: responseSchema(schema, documentOf('GET', '/api/v1/policy/:id'), OVERLAYS),
          PolicyListItem: responseSchema(schema, documentOf('GET', '/api/v1/policy'), OVERLAYS, ['policies', 'edges', 'node']),
          PolicyList: listSchema('PolicyListItem'),
          PolicyTransaction: responseSchema(schema, documentOf('GET', '/api/v1/policy/:id/transactions'), OVERLAYS, [
            'transactions',
            'edges',
            'node',
          ]),
          PolicyTransactionList: listSchema('PolicyTransaction'),
          ChangePolicyRequest: requestSchema(schema, 'ChangePolicyInput', OVERLAYS, 'closed'),
          PolicyPayment: responseSchema(schema, documentOf('GET', '/api/v1/policy/:id/payments'), OVERLAYS, ['payments', 'edges', 'node']),
          PolicyPaymentList: listSchema('PolicyPayment'),
          RecordPaymentRequest: requestSchema(schema, 'RecordPaymentInput', OVERLAYS, 'closed'),
          RecordRefundRequest: requestSchema(schema, 'RecordRefundInput', OVERLAYS, 'closed'),
          CancelPolicyRequest: requestSchema(schema, 'CancelPolicyInput', OVERLAYS, 'closed'),
          ReinstatePolicyRequest: { ...requestSchema(schema, 'ReinstatePolicyInput', OVERLAYS, 'closed'), description: 'Send `{}`' },
          RenewPolicyRequest: {
            ...requestSchema(schema, 'RenewPolicyInput', OVERLAYS, 'closed'),
            description: 'Both optional: `{}` renews on the current plan with a number the server assigns',
          },
          CreateQuoteRequest: {
            ...requestSchema(schema, 'CreateQuoteInput', OVERLAYS, 'closed'),
            description:
              'The policy create’s rules: dates are real calendar dates; expirationDate after effectiveDate and at most 5 years later; ' +
              'ownerDOB and petDOB not in the future, petDOB not after effectiveDate. `number`, `cvc` and `internalID` are refused ' +
              '(400 naming each): they are sent when issuing. Any other unknown property is 400 (`is not a field of this request`, with a "did you mean" when a field is within two edits). Without `organizationId` the quote goes to the token’s org.',
          },
          Quote: responseSchema(schema, documentOf('GET', '/api/v1/quote/:id'), OVERLAYS),
          EventListItem: responseSchema(schema, documentOf('GET', '/api/v1/events'), OVERLAYS, ['edges', 'node']),
          EventList: listSchema('EventListItem'),
          Event: responseSchema(schema, documentOf('GET', '/api/v1/events/:id'), OVERLAYS),
          CreateWebhookEndpointRequest: requestSchema(schema, 'CreateWebhookEndpointInput', OVERLAYS, 'open'),
          WebhookEndpointCreated: responseSchema(schema, documentOf('POST', '/api/v1/webhook-endpoints'), OVERLAYS),
          WebhookEndpoint: responseSchema(schema, documentOf('GET', '/api/v1/webhook-endpoints/:id'), OVERLAYS),
          UpdateWebhookEndpointRequest: {
            ...requestSchema(schema, 'UpdateWebhookEndpointInput', OVERLAYS, 'closed'),
            not: { anyOf: [{ required: ['id'] }, { required: ['organizationId'] }] },
            description:
              'A JSON merge patch (RFC 7396) of the endpoint: an absent field is kept; null removes an optional one (`events: null` ' +
              'receives every type again, as a create without `events`; `description`; `rateLimitPerSecond`); `url` and `enabled` cannot be ' +
              'null. `url` follows the create’s rules. `id` and `organizationId` are refused (400 naming them); any other unknown property is ' +
              '400 (`is not a field of this request`, with a "did you mean" when a field is within two edits).',
          },
          WebhookEndpointList: listSchema('WebhookEndpoint'),
          RotateWebhookSecretRequest: {
            ...requestSchema(schema, 'RotateWebhookSecretInput', OVERLAYS, 'closed'),
            description: '`{}` for a day of grace',
          },
          WebhookSecret: responseSchema(schema, documentOf('POST', '/api/v1/webhook-endpoints/:id/secret-rotation'), OVERLAYS),
          WebhookAttempt: responseSchema(schema, documentOf('GET', '/api/v1/webhook-endpoints/:id/attempts'), OVERLAYS, [
            'attempts',
            'edges',
            'node',
          ]),
          WebhookAttemptList: listSchema('WebhookAttempt'),
          SendTestWebhookRequest: { type: 'object', additionalProperties: false, properties: {}, description: 'No body, or `{}`' },
          SentTestWebhook: responseSchema(schema, documentOf('POST', '/api/v1/webhook-endpoints/:id/test'), OVERLAYS),
          RedeliverEventRequest: {
            type: 'object',
            additionalProperties: false,
            required: ['endpointId'],
            properties: { endpointId: { type: 'string', format: 'uuid', description: 'An endpoint that receives the event' } },
          },
          WebhookDelivery: responseSchema(schema, documentOf('POST', '/api/v1/events/:id/redeliveries'), OVERLAYS),
          RecoverWebhookEndpointRequest: requestSchema(schema, 'RecoverWebhookEndpointInput', OVERLAYS, 'closed'),
          WebhookRecovery: responseSchema(schema, documentOf('POST', '/api/v1/webhook-endpoints/:id/recovery'), OVERLAYS),
          CreateApiKeyRequest: requestSchema(schema, 'CreateApiKeyInput', OVERLAYS, 'closed'),
          RotateApiKeyRequest: {
            ...requestSchema(schema, 'RotateApiKeyInput', OVERLAYS, 'closed'),
            description: '`{}` for a day of grace',
          },
          ApiKeyCreated: responseSchema(schema, documentOf('POST', '/api/v1/api-keys'), OVERLAYS),
          ApiKey: responseSchema(schema, documentOf('GET', '/api/v1/api-keys/:id'), OVERLAYS),
          ApiKeyList: listSchema('ApiKey'),
          AuditEntry: responseSchema(schema, documentOf('GET', '/api/v1/audit-log'), OVERLAYS, ['edges', 'node']),
          AuditEntryList: listSchema('AuditEntry'),
          AuditVerification: responseSchema(schema, documentOf('GET', '/api/v1/audit-log/verify'), OVERLAYS),
        },
      },
    }),
  );
}

/**
 * Contract section 20, on every route: what an API key needs to call it, from the scopes its
 * document's fields declare (auth/scope-gate.ts), and the 403 a key without them gets.
 */
function withScopes<D extends { paths: Record<string, Record<string, OperationDescription>> }>(schema: GraphQLSchema, document: D): D {
  for (const route of REST_ROUTES) {
    const operation = document.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
    if (!operation) continue;
    const scopes = documentScopes(schema, parse(route.document));
    const needs = scopes.includes('tokens-only')
      ? 'A token only: an API key cannot call this route'
      : `An API key needs the scope ${scopes.map((scope) => `\`${scope}\``).join(' and ')}`;
    operation['x-api-key-scopes'] = scopes;
    operation.description = operation.description ? `${operation.description}\n\n${needs}.` : `${needs}.`;
    const quota = operation.responses?.[403];
    const refused = `${needs} (code FORBIDDEN, naming the scope)`;
    operation.responses = {
      ...operation.responses,
      403: problem(quota && 'description' in quota ? `${String(quota.description)}; or: ${refused}` : refused),
    };
  }
  return document;
}

/**
 * Contract section 17, on every route: a write's success answers `Consistency-Token`; a read
 * takes one, and sees at least that write (from a replica that has replayed it, else the primary).
 */
function withConsistencyTokens<D extends { paths: Record<string, Record<string, OperationDescription>> }>(document: D): D {
  for (const operations of Object.values(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (method === 'get') {
        operation.parameters = [...(operation.parameters ?? []), consistencyTokenParameter];
        // A read with no 400 of its own still answers one for a token no write gave.
        operation.responses = { 400: consistencyTokenRefused, ...operation.responses };
        continue;
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (status.startsWith('2')) response.headers = { ...response.headers, ...consistencyTokenHeader };
      }
    }
  }
  return document;
}

interface OperationDescription {
  description?: string;
  parameters?: unknown[];
  responses?: Record<string, { headers?: Record<string, unknown>; description?: string }>;
  'x-api-key-scopes'?: string[];
}

const consistencyTokenSchema = { type: 'string', pattern: LSN_PATTERN };

const consistencyTokenHeader = {
  'Consistency-Token': {
    description:
      'The primary’s WAL position after this write (e.g. `0/16B3748`). Send it back on a read as the `Consistency-Token` header: the read then sees this write, from a read replica that has replayed it or else from the primary.',
    schema: consistencyTokenSchema,
  },
};

const consistencyTokenRefused = problem(
  'The `Consistency-Token` header is not one a write answered: not a WAL position, or ahead of the primary’s (code BAD_USER_INPUT)',
);

const consistencyTokenParameter = {
  name: 'Consistency-Token',
  in: 'header',
  required: false,
  schema: consistencyTokenSchema,
  description:
    'The Consistency-Token of a write this read must see (read replicas, contract section 17); anything else, or a position ahead of the primary’s, is 400. Without it, a caller’s reads within DATABASE_REPLICA_STICKY_SECONDS of its own write on the instance see it too.',
};
