import { findAccessibleDelivery } from '../../events/event.reads.js';
import { createdEndpointAnswer } from '../../webhooks/create-webhook-endpoint.js';
import { findAccessibleEndpoint } from '../../webhooks/webhook-endpoint.reads.js';
import type {
  CreateWebhookEndpointMutation,
  DeleteWebhookEndpointMutation,
  RecoverWebhookEndpointMutation,
  RedeliverEventMutation,
  RotateWebhookEndpointSecretMutation,
  SendTestWebhookMutation,
  UpdateWebhookEndpointMutation,
  WebhookEndpointAttemptsQuery,
  WebhookEndpointQuery,
  WebhookEndpointsQuery,
} from '../generated/operations.js';
import { noEntityTag } from '../if-match.js';
import { listBody, PAGE_PARAMETERS, pageVariables } from '../list-page.js';
import { WEBHOOK_ENDPOINT_PATCH_EXAMPLE } from '../openapi-examples.js';
import { problem } from '../openapi-parts.js';
import {
  CREATE_WEBHOOK_ENDPOINT,
  DELETE_WEBHOOK_ENDPOINT,
  RECOVER_WEBHOOK_ENDPOINT,
  REDELIVER_EVENT,
  ROTATE_WEBHOOK_SECRET,
  SEND_TEST_WEBHOOK,
  UPDATE_WEBHOOK_ENDPOINT,
  WEBHOOK_ENDPOINT,
  WEBHOOK_ENDPOINT_ATTEMPTS,
  WEBHOOK_ENDPOINTS,
} from '../operations.js';
import { organizationIdParameter, singleParameter } from '../query-parameters.js';
import { del, get, patch, post, type RestRoute } from '../route-entry.js';

const NO_ENDPOINT = problem('No such endpoint, or the caller may not access it');
const STILL_RUNNING = problem('A request with the same Idempotency-Key is still running');
const DISABLED = problem('The endpoint is disabled (`INVALID_STATE`), or a request with the same Idempotency-Key is still running');

/** Webhook endpoints and the deliveries a caller asks for (contract sections 11 and 22). */
export const WEBHOOK_ROUTES: RestRoute[] = [
  post<CreateWebhookEndpointMutation>({
    path: '/api/v1/webhook-endpoints',
    document: CREATE_WEBHOOK_ENDPOINT,
    bodyVariable: 'input',
    rebuild: ({ db, principal, cipher }, created) => createdEndpointAnswer({ db, principal, cipher }, (created as { id: string }).id),
    response: (data) => data.createWebhookEndpoint,
    doc: {
      operationId: 'createWebhookEndpoint',
      summary: "Register an endpoint for the events of an organization's whole subtree; the secret is shown only here",
      tag: 'Webhooks',
      body: { schema: 'CreateWebhookEndpointRequest' },
      answer: { description: 'Created', schema: 'WebhookEndpointCreated', derive: [] },
      errors: {
        400: problem('The body breaks the rules, or the URL is not allowed (in production: https to a public address)'),
        403: problem(
          'The organization tree already has its quota of webhook endpoints (WEBHOOK_ENDPOINTS_PER_TREE, default 25; code QUOTA_EXCEEDED)',
        ),
        404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
        409: STILL_RUNNING,
      },
    },
  }),
  get<WebhookEndpointsQuery>({
    path: '/api/v1/webhook-endpoints',
    document: WEBHOOK_ENDPOINTS,
    query: [organizationIdParameter('Default: the token’s org'), ...PAGE_PARAMETERS],
    variables: ({ query }) => ({
      organizationId: singleParameter(query, 'organizationId') ?? null,
      ...pageVariables(query),
    }),
    response: (data) => listBody(data.webhookEndpoints),
    doc: {
      operationId: 'listWebhookEndpoints',
      summary: 'List the webhook endpoints registered on an organization',
      tag: 'Webhooks',
      answer: { description: 'A page', list: 'WebhookEndpointList', schema: 'WebhookEndpoint' },
      errors: { 404: problem('`organizationId` (or the token’s org) names no organization the caller may access') },
    },
  }),
  get<WebhookEndpointQuery>({
    path: '/api/v1/webhook-endpoints/:id',
    document: WEBHOOK_ENDPOINT,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.webhookEndpoint,
    doc: {
      operationId: 'getWebhookEndpoint',
      summary: 'Read a webhook endpoint (never its secret)',
      tag: 'Webhooks',
      answer: { description: 'Found', schema: 'WebhookEndpoint', derive: [] },
      errors: { 404: NO_ENDPOINT },
    },
  }),
  get<WebhookEndpointAttemptsQuery>({
    path: '/api/v1/webhook-endpoints/:id/attempts',
    document: WEBHOOK_ENDPOINT_ATTEMPTS,
    query: PAGE_PARAMETERS,
    variables: ({ params, query }) => ({ id: params.id, ...pageVariables(query) }),
    response: (data) => listBody(data.webhookEndpoint!.attempts),
    doc: {
      operationId: 'listWebhookAttempts',
      summary: "List a webhook endpoint's delivery attempts, newest first",
      description:
        'Every POST made to the endpoint (contract section 22), in the order they were recorded, newest first: the event and ' +
        'delivery it was for, the attempt number, when it began and how long it took, the HTTP status (null when no answer ' +
        'came), why no answer came (`error`: timeout, connection_refused, connection_reset, dns, tls, refused_address; else ' +
        'null) and the first 4 KB of the answer as text (4,096 bytes, cut on a UTF-8 boundary). Kept as long as the events ' +
        '(EVENT_RETENTION_SECONDS, 30 days). Pass `nextCursor` as `after` while `hasMore`.',
      tag: 'Webhooks',
      answer: { description: 'A page', list: 'WebhookAttemptList', schema: 'WebhookAttempt', derive: ['attempts', 'edges', 'node'] },
      errors: { 404: NO_ENDPOINT },
    },
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
    doc: {
      operationId: 'updateWebhookEndpoint',
      summary: 'Change a webhook endpoint: a JSON merge patch (RFC 7396); disable it, or enable it again',
      description:
        'The body is a merge patch (see UpdateWebhookEndpointRequest), sent as `application/merge-patch+json` or `application/json`. ' +
        'Answers the endpoint as its read does. `enabled: false` disables it (`status: disabled`, `disabledReason: "disabled by request"`): ' +
        'events made while it is disabled are not delivered to it, and its pending deliveries fail. `enabled: true` makes it active again ' +
        'and clears its back-off; it then receives new events only. `rateLimitPerSecond`: the receiver never gets more deliveries than that ' +
        'within any second (those over it wait, and their `nextAttemptAt` says until when); null removes the limit. ' +
        'An endpoint has no version: If-Match other than `*` is 412.',
      tag: 'Webhooks',
      body: {
        schema: 'UpdateWebhookEndpointRequest',
        rules: { not: { anyOf: [{ required: ['id'] }, { required: ['organizationId'] }] } },
        description:
          'A JSON merge patch (RFC 7396) of the endpoint: an absent field is kept; null removes an optional one (`events: null` ' +
          'receives every type again, as a create without `events`; `description`; `rateLimitPerSecond`); `url` and `enabled` cannot be ' +
          'null. `url` follows the create’s rules. `id` and `organizationId` are refused (400 naming them); any other unknown property is ' +
          '400 (`is not a field of this request`, with a "did you mean" when a field is within two edits).',
        examples: { typical: WEBHOOK_ENDPOINT_PATCH_EXAMPLE },
      },
      answer: { description: 'Changed (or nothing to change)', schema: 'WebhookEndpoint' },
      errors: {
        400: problem(
          'The body is not valid JSON, not an object, or breaks the rules (all listed in `errors`, at most 100): the URL is not allowed (in production: https to a public address), `url` or `enabled` is null, `rateLimitPerSecond` is not 1–1,000; `id` or `organizationId` sent is listed by name, any other unknown field as `is not a field of this request` (with a "did you mean" when one is within two edits)',
        ),
        404: NO_ENDPOINT,
        409: STILL_RUNNING,
        412: problem('If-Match was sent with an entity tag: an endpoint has none (code PRECONDITION_FAILED); nothing was written'),
        415: problem('The body is neither application/merge-patch+json nor application/json, or not UTF-8'),
      },
    },
  }),
  del<DeleteWebhookEndpointMutation>({
    path: '/api/v1/webhook-endpoints/:id',
    document: DELETE_WEBHOOK_ENDPOINT,
    variables: ({ params }) => ({ id: params.id }),
    doc: {
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint: it receives nothing more',
      tag: 'Webhooks',
      answer: { description: 'Deleted' },
      errors: { 404: NO_ENDPOINT },
    },
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
    doc: {
      operationId: 'rotateWebhookEndpointSecret',
      summary: 'A new signing secret, shown only in this answer; the old one signs beside it until `graceSeconds` have passed',
      description:
        'Until the grace ends every delivery to the endpoint carries both signatures in `webhook-signature`, `v1,<with the new> v1,<with the old>` (Standard Webhooks): a receiver verifying with either secret keeps working while it changes over. A second rotation within the grace replaces the kept secret.',
      tag: 'Webhooks',
      body: { schema: 'RotateWebhookSecretRequest', description: '`{}` for a day of grace', examples: { typical: { graceSeconds: 3600 } } },
      answer: { description: 'Rotated: the new secret', schema: 'WebhookSecret', derive: [] },
      errors: { 404: NO_ENDPOINT, 409: STILL_RUNNING },
    },
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
    doc: {
      operationId: 'sendTestWebhook',
      summary: 'Send a `webhook.test` event to this endpoint only',
      description:
        'The event (`data.object`: `{ "endpointId" }`) is kept out of event lists and goes to no other endpoint; `GET /api/v1/events/{eventId}` ' +
        'reads it with its delivery, and the endpoint’s attempts show each POST. Its first attempt is made at once, even while the ' +
        'endpoint is backed off after failures: a success ends the back-off. A disabled endpoint is 409: enable it first.',
      tag: 'Webhooks',
      body: { schema: 'SendTestWebhookRequest', description: 'No body, or `{}`', examples: { typical: {} } },
      answer: { description: 'Sent: the event and its delivery', schema: 'SentTestWebhook', derive: [] },
      errors: { 404: NO_ENDPOINT, 409: DISABLED },
    },
  }),
  post<RedeliverEventMutation>({
    path: '/api/v1/events/:id/redeliveries',
    document: REDELIVER_EVENT,
    bodyFields: ['endpointId'],
    closedBody: true,
    pathVariables: (params) => ({ id: params.id }),
    rebuild: ({ db, principal }, created) => findAccessibleDelivery(db, principal, (created as { id: string }).id),
    response: (data) => data.redeliverEvent,
    doc: {
      operationId: 'redeliverEvent',
      summary: 'Deliver an event once more to one endpoint',
      description:
        'A new delivery of the event to `endpointId`, with attempts of its own (the first at once, even while the endpoint is backed ' +
        'off). The endpoint must be one of the caller’s that receives the event: registered on its organization or above it, its ' +
        '`events` admitting the type (a test event: only the endpoint it was sent to); else 400 on `endpointId`.',
      tag: 'Webhooks',
      body: { schema: 'RedeliverEventRequest', examples: { typical: { endpointId: '0b8e6f8e-2d55-4f4b-9a55-4c0d7c1c2f10' } } },
      answer: { description: 'Queued: the new delivery', schema: 'WebhookDelivery', derive: [] },
      errors: { 404: problem('No such event, or the caller may not access it'), 409: DISABLED },
    },
  }),
  post<RecoverWebhookEndpointMutation>({
    path: '/api/v1/webhook-endpoints/:id/recovery',
    document: RECOVER_WEBHOOK_ENDPOINT,
    bodyVariable: 'input',
    closedBody: true,
    pathVariables: (params) => ({ id: params.id }),
    rebuild: async (_context, created) => ({ queued: (created as { queued: number }).queued }),
    response: (data) => data.recoverWebhookEndpoint,
    doc: {
      operationId: 'recoverWebhookEndpoint',
      summary: 'Deliver again every event since a time that the endpoint should have received and did not',
      description:
        'Every event of the endpoint’s subtree since `since` (at most 30 days ago), made after the endpoint was registered and of ' +
        'a type it receives, whose delivery to it failed or was skipped while it was disabled, is queued again, once each: an event ' +
        'with a pending or delivered delivery is not. Two recoveries at once queue each event once between them. The deliveries ' +
        'wait with the endpoint’s back-off and its rate limit. A disabled endpoint is 409: enable it first.',
      tag: 'Webhooks',
      body: { schema: 'RecoverWebhookEndpointRequest', examples: { typical: { since: '2026-11-27T09:00:00Z' } } },
      answer: { description: 'Queued: how many events', schema: 'WebhookRecovery', derive: [] },
      errors: { 404: NO_ENDPOINT, 409: DISABLED },
    },
  }),
];
