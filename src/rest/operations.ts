import { ORGANIZATION_ANSWER } from '../organizations/organization-event.js';
import { POLICY_ANSWER } from '../policies/policy-event.js';
import { QUOTE_ANSWER } from '../quotes/quote.reads.js';

/**
 * The GraphQL documents behind the `/api/v1` routes, one per route, so they read as the REST
 * contract in GraphQL terms. A resource's answer is one fragment, spread wherever a route answers
 * it (POLICY_ANSWER, ORGANIZATION_ANSWER, QUOTE_ANSWER, beside the events that carry the same
 * keys in the same order). `npm run codegen` types their results (`generated/operations.ts`),
 * so each route's `response` is checked against its selection; the OpenAPI response schemas
 * are derived from the same selections (openapi-schemas.ts).
 */
export const CREATE_ORGANIZATION = /* GraphQL */ `
  mutation CreateOrganization($input: CreateOrganizationInput!) {
    createOrganization(input: $input) { ...OrganizationAnswer }
  }
  ${ORGANIZATION_ANSWER}
`;

/** A change answers as the create does (contract section 15), with the version it made. */
export const UPDATE_ORGANIZATION = /* GraphQL */ `
  mutation UpdateOrganization($id: ID!, $input: UpdateOrganizationInput!, $ifVersion: Int) {
    updateOrganization(id: $id, input: $input, ifVersion: $ifVersion) { ...OrganizationAnswer }
  }
  ${ORGANIZATION_ANSWER}
`;

export const ORGANIZATION = /* GraphQL */ `
  query Organization($id: ID!) {
    organization(id: $id) { ...OrganizationAnswer }
  }
  ${ORGANIZATION_ANSWER}
`;

/**
 * A page of organizations: the children of \`$parentId\` when \`$children\`, else the caller's
 * entry points (spec section 10). One document, the branch chosen by \`@include\`/\`@skip\`.
 */
export const ORGANIZATIONS = /* GraphQL */ `
  query Organizations($children: Boolean!, $entries: Boolean!, $search: Boolean!, $parentId: ID!, $q: String!, $scope: ID, $first: Int!, $after: String) {
    organization(id: $parentId) @include(if: $children) {
      children(first: $first, after: $after) {
        edges {
          node { ...OrganizationAnswer }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
    viewer @include(if: $entries) {
      organizations(first: $first, after: $after) {
        edges {
          node { ...OrganizationAnswer }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
    found: viewer @include(if: $search) {
      searchOrganizations(q: $q, organizationId: $scope, first: $first, after: $after) {
        edges {
          node { ...OrganizationAnswer }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
  ${ORGANIZATION_ANSWER}
`;

export const CREATE_POLICY = /* GraphQL */ `
  mutation CreatePolicy($input: CreatePolicyInput!) {
    createPolicy(input: $input) { ...PolicyAnswer }
  }
  ${POLICY_ANSWER}
`;

export const POLICY = /* GraphQL */ `
  query Policy($number: SafeInt!) {
    policy(number: $number) { ...PolicyAnswer }
  }
  ${POLICY_ANSWER}
`;

/** Changing, cancelling and reinstating answer the policy as the read does, with its number from the path. */
export const CHANGE_POLICY = /* GraphQL */ `
  mutation ChangePolicy($number: SafeInt!, $input: ChangePolicyInput!) {
    changePolicy(number: $number, input: $input) { ...PolicyAnswer }
  }
  ${POLICY_ANSWER}
`;

export const CANCEL_POLICY = /* GraphQL */ `
  mutation CancelPolicy($number: SafeInt!, $input: CancelPolicyInput!) {
    cancelPolicy(number: $number, input: $input) { ...PolicyAnswer }
  }
  ${POLICY_ANSWER}
`;

export const REINSTATE_POLICY = /* GraphQL */ `
  mutation ReinstatePolicy($number: SafeInt!, $input: ReinstatePolicyInput!) {
    reinstatePolicy(number: $number, input: $input) { ...PolicyAnswer }
  }
  ${POLICY_ANSWER}
`;

/** Renewing answers the new policy (the successor), as the read does. */
export const RENEW_POLICY = /* GraphQL */ `
  mutation RenewPolicy($number: SafeInt!, $input: RenewPolicyInput!) {
    renewPolicy(number: $number, input: $input) { ...PolicyAnswer }
  }
  ${POLICY_ANSWER}
`;

/**
 * A page of policies: the organization's own, or with \`$includeDescendants\` its subtree's (spec
 * section 10); or, with \`$byInternalID\`, those with that internalID among every policy the caller
 * may access (contract section 18). One document, the branch chosen by \`@include\`/\`@skip\`.
 */
export const POLICIES = /* GraphQL */ `
  query Policies(
    $list: Boolean!
    $byInternalID: Boolean!
    $search: Boolean!
    $internalID: String!
    $q: String!
    $organizationId: ID!
    $scope: ID
    $includeDescendants: Boolean!
    $status: PolicyStatus
    $coverageSlug: String
    $billingStatus: BillingStatus
    $effectiveFrom: String
    $effectiveTo: String
    $first: Int!
    $after: String
  ) {
    organization(id: $organizationId) @include(if: $list) {
      policies(
        first: $first
        after: $after
        includeDescendants: $includeDescendants
        status: $status
        coverageSlug: $coverageSlug
        billingStatus: $billingStatus
        effectiveFrom: $effectiveFrom
        effectiveTo: $effectiveTo
      ) {
        edges {
          node { ...PolicyAnswer }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
    viewer @include(if: $byInternalID) {
      policies(
        internalID: $internalID
        first: $first
        after: $after
        status: $status
        coverageSlug: $coverageSlug
        billingStatus: $billingStatus
        effectiveFrom: $effectiveFrom
        effectiveTo: $effectiveTo
      ) {
        edges {
          node { ...PolicyAnswer }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
    found: viewer @include(if: $search) {
      searchPolicies(
        q: $q
        organizationId: $scope
        first: $first
        after: $after
        status: $status
        coverageSlug: $coverageSlug
        billingStatus: $billingStatus
        effectiveFrom: $effectiveFrom
        effectiveTo: $effectiveTo
      ) {
        edges {
          node { ...PolicyAnswer }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
  ${POLICY_ANSWER}
`;

/** A payment and a refund (contract section 19) answer the policy as the read does. */
export const RECORD_PAYMENT = /* GraphQL */ `
  mutation RecordPayment($number: SafeInt!, $input: RecordPaymentInput!) {
    recordPayment(number: $number, input: $input) { ...PolicyAnswer }
  }
  ${POLICY_ANSWER}
`;

export const RECORD_REFUND = /* GraphQL */ `
  mutation RecordRefund($number: SafeInt!, $input: RecordRefundInput!) {
    recordRefund(number: $number, input: $input) { ...PolicyAnswer }
  }
  ${POLICY_ANSWER}
`;

/** A policy's payments and refunds, oldest first (contract section 19): a page, as the lists of section 10. */
export const POLICY_PAYMENTS = /* GraphQL */ `
  query PolicyPayments($number: SafeInt!, $first: Int!, $after: String) {
    policy(number: $number) {
      payments(first: $first, after: $after) {
        edges { node { id type amount reference date createdAt createdBy } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

/** A policy's transactions, oldest first (spec section 14): a page, as the lists of section 10. */
export const POLICY_TRANSACTIONS = /* GraphQL */ `
  query PolicyTransactions($number: SafeInt!, $first: Int!, $after: String) {
    policy(number: $number) {
      transactions(first: $first, after: $after) {
        edges { node { id type effectiveDate createdAt createdBy changes } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

/** Events (spec section 11): a page of those the caller may access, or one with its deliveries. */
export const EVENTS = /* GraphQL */ `
  query Events($organizationId: ID, $types: [String!], $first: Int!, $after: String) {
    events(organizationId: $organizationId, types: $types, first: $first, after: $after) {
      edges {
        node {
          id type apiVersion createdAt organizationId actor { sub apiKeyId } data
          deliveries { id eventId endpointId status attempts lastStatus lastError lastAttemptAt nextAttemptAt deliveredAt }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

export const EVENT = /* GraphQL */ `
  query Event($id: ID!) {
    event(id: $id) {
      id type apiVersion createdAt organizationId actor { sub apiKeyId } data
      deliveries { id eventId endpointId status attempts lastStatus lastError lastAttemptAt nextAttemptAt deliveredAt }
    }
  }
`;

/** Webhook endpoints (spec section 11): the secret only in the create's answer. */
export const CREATE_WEBHOOK_ENDPOINT = /* GraphQL */ `
  mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
    createWebhookEndpoint(input: $input) {
      id url organizationId events description createdAt status disabledReason disabledAt rateLimitPerSecond secret
    }
  }
`;

export const WEBHOOK_ENDPOINT = /* GraphQL */ `
  query WebhookEndpoint($id: ID!) {
    webhookEndpoint(id: $id) { id url organizationId events description createdAt status disabledReason disabledAt rateLimitPerSecond }
  }
`;

export const WEBHOOK_ENDPOINTS = /* GraphQL */ `
  query WebhookEndpoints($organizationId: ID, $first: Int!, $after: String) {
    webhookEndpoints(organizationId: $organizationId, first: $first, after: $after) {
      edges { node { id url organizationId events description createdAt status disabledReason disabledAt rateLimitPerSecond } }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

export const ROTATE_WEBHOOK_SECRET = /* GraphQL */ `
  mutation RotateWebhookEndpointSecret($id: ID!, $input: RotateWebhookSecretInput) {
    rotateWebhookEndpointSecret(id: $id, input: $input) { secret }
  }
`;

/** An endpoint's attempt log, newest first (contract section 22): a page, as the lists of section 10. */
export const WEBHOOK_ENDPOINT_ATTEMPTS = /* GraphQL */ `
  query WebhookEndpointAttempts($id: ID!, $first: Int!, $after: String) {
    webhookEndpoint(id: $id) {
      attempts(first: $first, after: $after) {
        edges { node { id eventId deliveryId attempt startedAt durationMs responseStatus error responseBody } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

/** A change answers the endpoint as its read does (contract section 22). */
export const UPDATE_WEBHOOK_ENDPOINT = /* GraphQL */ `
  mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
    updateWebhookEndpoint(id: $id, input: $input) {
      id url organizationId events description createdAt status disabledReason disabledAt rateLimitPerSecond
    }
  }
`;

/** Contract section 22: what a caller asks delivered. A redelivery answers the new delivery as an event's deliveries read. */
export const SEND_TEST_WEBHOOK = /* GraphQL */ `
  mutation SendTestWebhook($id: ID!) {
    sendTestWebhook(id: $id) { eventId deliveryId }
  }
`;

export const REDELIVER_EVENT = /* GraphQL */ `
  mutation RedeliverEvent($id: ID!, $endpointId: ID!) {
    redeliverEvent(id: $id, endpointId: $endpointId) {
      id eventId endpointId status attempts lastStatus lastError lastAttemptAt nextAttemptAt deliveredAt
    }
  }
`;

export const RECOVER_WEBHOOK_ENDPOINT = /* GraphQL */ `
  mutation RecoverWebhookEndpoint($id: ID!, $input: RecoverWebhookEndpointInput!) {
    recoverWebhookEndpoint(id: $id, input: $input) { queued }
  }
`;

export const DELETE_WEBHOOK_ENDPOINT = /* GraphQL */ `
  mutation DeleteWebhookEndpoint($id: ID!) {
    deleteWebhookEndpoint(id: $id)
  }
`;

/** Quotes (contract section 14): the create's and the read's answers are the same shape. */
export const CREATE_QUOTE = /* GraphQL */ `
  mutation CreateQuote($input: CreateQuoteInput!) {
    createQuote(input: $input) { ...QuoteAnswer }
  }
  ${QUOTE_ANSWER}
`;

export const QUOTE = /* GraphQL */ `
  query Quote($id: ID!) {
    quote(id: $id) { ...QuoteAnswer }
  }
  ${QUOTE_ANSWER}
`;

/** An API key as REST answers it (contract section 20), in its order: never the key, but on a create or a rotation. */

export const CREATE_API_KEY = /* GraphQL */ `
  mutation CreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) { id name organizationId scopes prefix createdAt createdBy expiresAt lastUsedAt key }
  }
`;

export const ROTATE_API_KEY = /* GraphQL */ `
  mutation RotateApiKey($id: ID!, $input: RotateApiKeyInput) {
    rotateApiKey(id: $id, input: $input) { id name organizationId scopes prefix createdAt createdBy expiresAt lastUsedAt key }
  }
`;

export const REVOKE_API_KEY = /* GraphQL */ `
  mutation RevokeApiKey($id: ID!) {
    revokeApiKey(id: $id)
  }
`;

export const API_KEY = /* GraphQL */ `
  query ApiKey($id: ID!) {
    apiKey(id: $id) { id name organizationId scopes prefix createdAt createdBy expiresAt lastUsedAt }
  }
`;

export const API_KEYS = /* GraphQL */ `
  query ApiKeys($organizationId: ID, $first: Int!, $after: String) {
    apiKeys(organizationId: $organizationId, first: $first, after: $after) {
      edges { node { id name organizationId scopes prefix createdAt createdBy expiresAt lastUsedAt } }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

/** The audit log (contract section 21): a page of a subtree's entries, newest first, and a tree's chain verified. */
export const AUDIT_LOG = /* GraphQL */ `
  query AuditLog(
    $organizationId: ID
    $actions: [String!]
    $actorSub: String
    $since: String
    $until: String
    $first: Int!
    $after: String
  ) {
    auditLog(organizationId: $organizationId, actions: $actions, actorSub: $actorSub, since: $since, until: $until, first: $first, after: $after) {
      edges { node { id occurredAt action actor { sub apiKeyId ip userAgent } targets { type id } organizationId requestId changes hash } }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

export const AUDIT_LOG_VERIFICATION = /* GraphQL */ `
  query AuditLogVerification($organizationId: ID) {
    auditLogVerification(organizationId: $organizationId) { ok checked firstBrokenId }
  }
`;
