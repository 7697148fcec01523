/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
export type AddressInput = {
  /** Further properties to keep with the address (REST clients send them inline); at most 2 KB as JSON, 3 levels deep */
  additionalFields: Record<string, unknown> | null | undefined;
  city: string | null | undefined;
  country: string | null | undefined;
  division: string | null | undefined;
  line1: string | null | undefined;
  line2: string | null | undefined;
  postal: string | null | undefined;
};

export type BankAccountInput = {
  /** Stored encrypted; responses carry accountLast4 */
  account: string;
  nickname: string | null | undefined;
  routing: string;
};

/** credit (paid more than billed), past_due (unpaid beyond BILLING_GRACE_DAYS), due (owed now) or settled; today in UTC */
export type BillingStatus =
  /** Paid more than is billed: refundable */
  | 'credit'
  /** Owes what is billed, within the grace period */
  | 'due'
  /** Owes charges due more than BILLING_GRACE_DAYS ago */
  | 'past_due'
  /** Paid exactly what is billed */
  | 'settled';

export type CancelPolicyInput = {
  /** YYYY-MM-DD, the day cover ends: in the term, not before the latest transaction */
  effectiveDate: string;
  /** Decides the method: insured_request short_rate, non_payment pro_rata, underwriting pro_rata, fraud pro_rata (cannot be reinstated), free_look flat (only within POLICY_FREE_LOOK_DAYS of the policy's effectiveDate), other pro_rata */
  reason: CancellationReason;
};

/** How a cancellation credits the schedule periods it ends */
export type CancellationMethod =
  /** Every period credited in full */
  | 'flat'
  /** Each period credited for the days of it left */
  | 'pro_rata'
  /** As pro_rata, plus a fee of POLICY_SHORT_RATE_PERCENT of the credits */
  | 'short_rate';

/** Why a policy is cancelled: it decides the method */
export type CancellationReason =
  /** Method pro_rata (cannot be reinstated) */
  | 'fraud'
  /** Method flat (only within POLICY_FREE_LOOK_DAYS of the policy's effectiveDate) */
  | 'free_look'
  /** Method short_rate */
  | 'insured_request'
  /** Method pro_rata */
  | 'non_payment'
  /** Method pro_rata */
  | 'other'
  /** Method pro_rata */
  | 'underwriting';

export type ChangePolicyInput = {
  /** A slug of the coverage catalog: the plan at today's catalog price from effectiveDate, which must then be a billing date */
  coverageSlug: string | null | undefined;
  /** YYYY-MM-DD, the day the change takes effect: in the term, not before the latest transaction; with coverageSlug, a billing date (the start of a schedule period) */
  effectiveDate: string;
  /** YYYY-MM-DD, not in the future */
  ownerDOB: string | null | undefined;
  ownerFirstname: string | null | undefined;
  ownerLastname: string | null | undefined;
  /** YYYY-MM-DD, not in the future nor after the policy's effectiveDate */
  petDOB: string | null | undefined;
  petName: string | null | undefined;
};

/** What a charge of the ledger is */
export type ChargeType =
  /** A negative amount: what is no longer owed for its period */
  | 'credit'
  | 'fee'
  | 'premium'
  /** Undoes the charge named by reverses, with the opposite amount */
  | 'reversal';

export type CreateApiKeyInput = {
  /** Days until it expires, 1-365; 90 when absent */
  expiresInDays: number | null | undefined;
  /** What the key is for, 1-100 characters: shown in lists, never secret */
  name: string;
  /** The organization the key acts for (it reaches that organization's subtree); defaults to the token's org */
  organizationId: string | number | null | undefined;
  /** What the key may do: a non-empty subset of organizations:read, organizations:write, policies:read, policies:write, billing:write, events:read, webhooks:write, audit:read */
  scopes: Array<string>;
};

export type CreateOrganizationInput = {
  address: AddressInput | null | undefined;
  /** At most 10 */
  bankAccounts: Array<BankAccountInput> | null | undefined;
  description: string | null | undefined;
  descriptor: string | null | undefined;
  email: string | null | undefined;
  legalName: string;
  legalType: string;
  logo: string | null | undefined;
  /** Defaults to legalName */
  name: string | null | undefined;
  /** At most 25; ownership adds up to at most 100 */
  owners: Array<OwnerInput> | null | undefined;
  /** Parent organization (must be accessible, and less deep than ORGANIZATION_MAX_DEPTH, 32 levels by default, a root being level 1); defaults to the token's org, else a root */
  parentId: string | number | null | undefined;
  phone: string | null | undefined;
  taxId: string;
  type: string | null | undefined;
  website: string | null | undefined;
};

export type CreatePolicyInput = {
  /** A slug of the coverage catalog (query coverages); required unless quoteId */
  coverageSlug: string | null | undefined;
  /** 3 or 4 digits; validated, then discarded (never stored) */
  cvc: string | null | undefined;
  /** YYYY-MM-DD; required unless quoteId */
  effectiveDate: string | null | undefined;
  /** YYYY-MM-DD, after effectiveDate, at most 5 years later; required unless quoteId */
  expirationDate: string | null | undefined;
  internalID: string | null | undefined;
  /** Unique; assigned by the server when absent */
  number: number | null | undefined;
  /** Owning organization (must be accessible); defaults to the token's org */
  organizationId: string | number | null | undefined;
  /** YYYY-MM-DD, not in the future */
  ownerDOB: string | null | undefined;
  /** Required unless quoteId */
  ownerFirstname: string | null | undefined;
  /** Required unless quoteId */
  ownerLastname: string | null | undefined;
  /** YYYY-MM-DD, not in the future nor after effectiveDate */
  petDOB: string | null | undefined;
  /** Required unless quoteId */
  petName: string | null | undefined;
  /** Issues this quote (contract section 14): the policy's fields, coverage and charges are the quote's; send no quoted field */
  quoteId: string | number | null | undefined;
};

export type CreateQuoteInput = {
  /** A slug of the coverage catalog (query coverages) */
  coverageSlug: string;
  /** YYYY-MM-DD */
  effectiveDate: string;
  /** YYYY-MM-DD, after effectiveDate, at most 5 years later */
  expirationDate: string;
  /** Organization the policy would belong to (must be accessible); defaults to the token's org */
  organizationId: string | number | null | undefined;
  /** YYYY-MM-DD, not in the future */
  ownerDOB: string | null | undefined;
  ownerFirstname: string;
  ownerLastname: string;
  /** YYYY-MM-DD, not in the future nor after effectiveDate */
  petDOB: string | null | undefined;
  petName: string;
};

export type CreateWebhookEndpointInput = {
  description: string | null | undefined;
  /** Event types to receive (organization.created, organization.updated, policy.created, policy.changed, policy.cancelled, policy.reinstated, policy.renewed, policy.payment_recorded, policy.refund_recorded, policy.past_due, quote.created); all when absent */
  events: Array<string> | null | undefined;
  /** Whose subtree's events; defaults to the token's org */
  organizationId: string | number | null | undefined;
  /** Where events are POSTed: an absolute URL; in production https and not a private or loopback address */
  url: string;
};

export type OwnerInput = {
  address: AddressInput | null | undefined;
  /** YYYY-MM-DD, not in the future */
  birthdate: string | null | undefined;
  email: string | null | undefined;
  firstname: string;
  lastname: string;
  /** Percentage owned, 0 < ownership <= 100 */
  ownership: number | null | undefined;
  phone: string | null | undefined;
  /** 4 to 40 letters or digits (separators allowed); stored encrypted, responses carry taxIdLast4 */
  taxId: string | null | undefined;
};

/** Money the integrator recorded for a policy (contract section 19) */
export type PaymentType =
  /** Received from the policyholder */
  | 'payment'
  /** Paid back to the policyholder, at most the credit balance */
  | 'refund';

/** pending (before effectiveDate), active, cancelled (a cancellation in effect) or expired (on or after expirationDate); today in UTC */
export type PolicyStatus =
  | 'active'
  | 'cancelled'
  | 'expired'
  | 'pending';

/** Where a quote stands, as of the read */
export type QuoteStatus =
  /** expiresAt has passed without it being issued */
  | 'expired'
  /** A policy was issued from it (policyNumber) */
  | 'issued'
  /** It can be issued */
  | 'open';

export type RecordPaymentInput = {
  /** Cents, from 1 to 100,000,000 */
  amount: number;
  /** YYYY-MM-DD, the day it was received: not in the future; today (UTC) when absent */
  receivedOn: string | null | undefined;
  /** The payment provider's id, 1-100 printable characters: unique among the policy's payments and refunds (409 CONFLICT) */
  reference: string;
};

export type RecordRefundInput = {
  /** Cents, from 1 to 100,000,000 */
  amount: number;
  /** YYYY-MM-DD, the day it was paid back: not in the future; today (UTC) when absent */
  paidOn: string | null | undefined;
  /** The payment provider's id, 1-100 printable characters: unique among the policy's payments and refunds (409 CONFLICT) */
  reference: string;
};

export type RecoverWebhookEndpointInput = {
  /** RFC 3339, at most 30 days ago: every event since then the endpoint should have received and did not is delivered again */
  since: string;
};

export type ReinstatePolicyInput = {
  /** Optional, ignored (GraphQL input types cannot be empty) */
  clientMutationId: string | null | undefined;
};

export type RenewPolicyInput = {
  /** The successor's plan, at today's catalog price; the policy's current plan when absent */
  coverageSlug: string | null | undefined;
  /** The successor's number, unique (409 CONFLICT when taken); assigned by the server when absent */
  number: number | null | undefined;
};

export type RotateApiKeyInput = {
  /** Seconds the old key keeps working, 0-604800 (never past its own expiry); 86400 when absent */
  graceSeconds: number | null | undefined;
};

export type RotateWebhookSecretInput = {
  /** Seconds the old secret keeps signing beside the new one, 0-604,800; 86,400 when absent */
  graceSeconds: number | null | undefined;
};

/** A step in a policy's life */
export type TransactionType =
  | 'cancellation'
  | 'change'
  /** The policy's first transaction: its premium schedule */
  | 'issuance'
  | 'reinstatement'
  /** A successor's first transaction: its premium schedule */
  | 'renewal';

export type UpdateOrganizationInput = {
  /** Merged into the stored address (RFC 7396): a field set to null is removed, an absent one kept; null removes the address */
  address: AddressInput | null | undefined;
  /** Replaces every bank account (at most 10); null or [] removes them */
  bankAccounts: Array<BankAccountInput> | null | undefined;
  description: string | null | undefined;
  descriptor: string | null | undefined;
  email: string | null | undefined;
  /** Required: cannot be null */
  legalName: string | null | undefined;
  /** Required: cannot be null */
  legalType: string | null | undefined;
  logo: string | null | undefined;
  /** null: back to legalName */
  name: string | null | undefined;
  /** Replaces every owner (at most 25; ownership adds up to at most 100); null or [] removes them */
  owners: Array<OwnerInput> | null | undefined;
  phone: string | null | undefined;
  /** Required: cannot be null */
  taxId: string | null | undefined;
  type: string | null | undefined;
  website: string | null | undefined;
};

export type UpdateWebhookEndpointInput = {
  /** null removes it */
  description: string | null | undefined;
  /** false: disabled ("disabled by request"), it gets no deliveries and its pending ones fail; true: active again, its back-off cleared. Cannot be null */
  enabled: boolean | null | undefined;
  /** Event types to receive (organization.created, organization.updated, policy.created, policy.changed, policy.cancelled, policy.reinstated, policy.renewed, policy.payment_recorded, policy.refund_recorded, policy.past_due, quote.created); null: every type, as when created without */
  events: Array<string> | null | undefined;
  /** At most this many deliveries a second, 1 to 1000: the receiver never gets more within any second; null: no limit of its own */
  rateLimitPerSecond: number | null | undefined;
  /** Where events are POSTed, under the create’s rules (in production https and not a private address); cannot be null */
  url: string | null | undefined;
};

/** Why an attempt got no answer, or its answer broke off (contract section 22) */
export type WebhookAttemptError =
  /** No connection could be opened: refused, or the host or network unreachable */
  | 'connection_refused'
  /** The connection was broken by the other side */
  | 'connection_reset'
  /** The host name did not resolve */
  | 'dns'
  /** The URL policy refused it: an address that is not public, or not https (production) */
  | 'refused_address'
  /** No whole answer within the time limit (WEBHOOK_TIMEOUT_SECONDS) */
  | 'timeout'
  /** The TLS handshake failed (a certificate not trusted, expired, or for another name, ...) */
  | 'tls';

export type OrganizationAnswerFragment = { id: string, name: string, parentId: string | null, version: number, legalName: string, legalType: string, taxId: string, description: string | null, logo: string | null, type: string | null, descriptor: string | null, phone: string | null, email: string | null, website: string | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null, bankAccounts: Array<{ id: string, nickname: string | null, routing: string, accountLast4: string }>, owners: Array<{ id: string, firstname: string, lastname: string, birthdate: string | null, taxIdLast4: string | null, email: string | null, phone: string | null, ownership: number | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null }> };

export type PolicyAnswerFragment = { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null };

export type QuoteAnswerFragment = { id: string, organizationId: string, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, totalPremium: number, currency: string, status: QuoteStatus, expiresAt: string, policyNumber: number | null, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string }> };

export type CreateOrganizationMutationVariables = Exact<{
  input: CreateOrganizationInput;
}>;


export type CreateOrganizationMutation = { createOrganization: { id: string, name: string, parentId: string | null, version: number, legalName: string, legalType: string, taxId: string, description: string | null, logo: string | null, type: string | null, descriptor: string | null, phone: string | null, email: string | null, website: string | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null, bankAccounts: Array<{ id: string, nickname: string | null, routing: string, accountLast4: string }>, owners: Array<{ id: string, firstname: string, lastname: string, birthdate: string | null, taxIdLast4: string | null, email: string | null, phone: string | null, ownership: number | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null }> } };

export type UpdateOrganizationMutationVariables = Exact<{
  id: string | number;
  input: UpdateOrganizationInput;
  ifVersion: number | null | undefined;
}>;


export type UpdateOrganizationMutation = { updateOrganization: { id: string, name: string, parentId: string | null, version: number, legalName: string, legalType: string, taxId: string, description: string | null, logo: string | null, type: string | null, descriptor: string | null, phone: string | null, email: string | null, website: string | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null, bankAccounts: Array<{ id: string, nickname: string | null, routing: string, accountLast4: string }>, owners: Array<{ id: string, firstname: string, lastname: string, birthdate: string | null, taxIdLast4: string | null, email: string | null, phone: string | null, ownership: number | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null }> } };

export type OrganizationQueryVariables = Exact<{
  id: string | number;
}>;


export type OrganizationQuery = { organization: { id: string, name: string, parentId: string | null, version: number, legalName: string, legalType: string, taxId: string, description: string | null, logo: string | null, type: string | null, descriptor: string | null, phone: string | null, email: string | null, website: string | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null, bankAccounts: Array<{ id: string, nickname: string | null, routing: string, accountLast4: string }>, owners: Array<{ id: string, firstname: string, lastname: string, birthdate: string | null, taxIdLast4: string | null, email: string | null, phone: string | null, ownership: number | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null }> } | null };

export type OrganizationsQueryVariables = Exact<{
  children: boolean;
  entries: boolean;
  search: boolean;
  parentId: string | number;
  q: string;
  scope: string | number | null | undefined;
  first: number;
  after: string | null | undefined;
}>;


export type OrganizationsQuery = { organization?: { children: { edges: Array<{ node: { id: string, name: string, parentId: string | null, version: number, legalName: string, legalType: string, taxId: string, description: string | null, logo: string | null, type: string | null, descriptor: string | null, phone: string | null, email: string | null, website: string | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null, bankAccounts: Array<{ id: string, nickname: string | null, routing: string, accountLast4: string }>, owners: Array<{ id: string, firstname: string, lastname: string, birthdate: string | null, taxIdLast4: string | null, email: string | null, phone: string | null, ownership: number | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null, viewer?: { organizations: { edges: Array<{ node: { id: string, name: string, parentId: string | null, version: number, legalName: string, legalType: string, taxId: string, description: string | null, logo: string | null, type: string | null, descriptor: string | null, phone: string | null, email: string | null, website: string | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null, bankAccounts: Array<{ id: string, nickname: string | null, routing: string, accountLast4: string }>, owners: Array<{ id: string, firstname: string, lastname: string, birthdate: string | null, taxIdLast4: string | null, email: string | null, phone: string | null, ownership: number | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } }, found?: { searchOrganizations: { edges: Array<{ node: { id: string, name: string, parentId: string | null, version: number, legalName: string, legalType: string, taxId: string, description: string | null, logo: string | null, type: string | null, descriptor: string | null, phone: string | null, email: string | null, website: string | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null, bankAccounts: Array<{ id: string, nickname: string | null, routing: string, accountLast4: string }>, owners: Array<{ id: string, firstname: string, lastname: string, birthdate: string | null, taxIdLast4: string | null, email: string | null, phone: string | null, ownership: number | null, address: { line1: string | null, line2: string | null, division: string | null, city: string | null, postal: string | null, country: string | null, additionalFields: Record<string, unknown> | null } | null }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } };

export type CreatePolicyMutationVariables = Exact<{
  input: CreatePolicyInput;
}>;


export type CreatePolicyMutation = { createPolicy: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } };

export type PolicyQueryVariables = Exact<{
  number: number;
}>;


export type PolicyQuery = { policy: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } | null };

export type ChangePolicyMutationVariables = Exact<{
  number: number;
  input: ChangePolicyInput;
}>;


export type ChangePolicyMutation = { changePolicy: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } };

export type CancelPolicyMutationVariables = Exact<{
  number: number;
  input: CancelPolicyInput;
}>;


export type CancelPolicyMutation = { cancelPolicy: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } };

export type ReinstatePolicyMutationVariables = Exact<{
  number: number;
  input: ReinstatePolicyInput;
}>;


export type ReinstatePolicyMutation = { reinstatePolicy: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } };

export type RenewPolicyMutationVariables = Exact<{
  number: number;
  input: RenewPolicyInput;
}>;


export type RenewPolicyMutation = { renewPolicy: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } };

export type PoliciesQueryVariables = Exact<{
  list: boolean;
  byInternalID: boolean;
  search: boolean;
  internalID: string;
  q: string;
  organizationId: string | number;
  scope: string | number | null | undefined;
  includeDescendants: boolean;
  status: PolicyStatus | null | undefined;
  coverageSlug: string | null | undefined;
  billingStatus: BillingStatus | null | undefined;
  effectiveFrom: string | null | undefined;
  effectiveTo: string | null | undefined;
  first: number;
  after: string | null | undefined;
}>;


export type PoliciesQuery = { organization?: { policies: { edges: Array<{ node: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null, viewer?: { policies: { edges: Array<{ node: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } }, found?: { searchPolicies: { edges: Array<{ node: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } };

export type RecordPaymentMutationVariables = Exact<{
  number: number;
  input: RecordPaymentInput;
}>;


export type RecordPaymentMutation = { recordPayment: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } };

export type RecordRefundMutationVariables = Exact<{
  number: number;
  input: RecordRefundInput;
}>;


export type RecordRefundMutation = { recordRefund: { id: string, number: number, internalID: string | null, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, coverageSlug: string, status: PolicyStatus, renewalOf: number | null, renewedBy: number | null, version: number, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ id: string, type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string, transactionId: string, reverses: string | null }>, organization: { id: string, name: string, parentId: string | null }, billing: { billed: number, paid: number, balance: number, pastDue: number, status: BillingStatus, nextDueDate: string | null, nextDueAmount: number | null }, cancellation: { effectiveDate: string, reason: CancellationReason, method: CancellationMethod, credited: number, fee: number, createdAt: string } | null } };

export type PolicyPaymentsQueryVariables = Exact<{
  number: number;
  first: number;
  after: string | null | undefined;
}>;


export type PolicyPaymentsQuery = { policy: { payments: { edges: Array<{ node: { id: string, type: PaymentType, amount: number, reference: string, date: string, createdAt: string, createdBy: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type PolicyTransactionsQueryVariables = Exact<{
  number: number;
  first: number;
  after: string | null | undefined;
}>;


export type PolicyTransactionsQuery = { policy: { transactions: { edges: Array<{ node: { id: string, type: TransactionType, effectiveDate: string, createdAt: string, createdBy: string, changes: Record<string, unknown> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type EventsQueryVariables = Exact<{
  organizationId: string | number | null | undefined;
  types: Array<string> | string | null | undefined;
  first: number;
  after: string | null | undefined;
}>;


export type EventsQuery = { events: { edges: Array<{ node: { id: string, type: string, apiVersion: string, createdAt: string, organizationId: string, data: Record<string, unknown>, actor: { sub: string, apiKeyId: string | null } | null, deliveries: Array<{ id: string, eventId: string, endpointId: string, status: string, attempts: number, lastStatus: number | null, lastError: string | null, lastAttemptAt: string | null, nextAttemptAt: string | null, deliveredAt: string | null }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type EventQueryVariables = Exact<{
  id: string | number;
}>;


export type EventQuery = { event: { id: string, type: string, apiVersion: string, createdAt: string, organizationId: string, data: Record<string, unknown>, actor: { sub: string, apiKeyId: string | null } | null, deliveries: Array<{ id: string, eventId: string, endpointId: string, status: string, attempts: number, lastStatus: number | null, lastError: string | null, lastAttemptAt: string | null, nextAttemptAt: string | null, deliveredAt: string | null }> } | null };

export type CreateWebhookEndpointMutationVariables = Exact<{
  input: CreateWebhookEndpointInput;
}>;


export type CreateWebhookEndpointMutation = { createWebhookEndpoint: { id: string, url: string, organizationId: string, events: Array<string>, description: string | null, createdAt: string, status: string, disabledReason: string | null, disabledAt: string | null, rateLimitPerSecond: number | null, secret: string } };

export type WebhookEndpointQueryVariables = Exact<{
  id: string | number;
}>;


export type WebhookEndpointQuery = { webhookEndpoint: { id: string, url: string, organizationId: string, events: Array<string>, description: string | null, createdAt: string, status: string, disabledReason: string | null, disabledAt: string | null, rateLimitPerSecond: number | null } | null };

export type WebhookEndpointsQueryVariables = Exact<{
  organizationId: string | number | null | undefined;
  first: number;
  after: string | null | undefined;
}>;


export type WebhookEndpointsQuery = { webhookEndpoints: { edges: Array<{ node: { id: string, url: string, organizationId: string, events: Array<string>, description: string | null, createdAt: string, status: string, disabledReason: string | null, disabledAt: string | null, rateLimitPerSecond: number | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type RotateWebhookEndpointSecretMutationVariables = Exact<{
  id: string | number;
  input: RotateWebhookSecretInput | null | undefined;
}>;


export type RotateWebhookEndpointSecretMutation = { rotateWebhookEndpointSecret: { secret: string } };

export type WebhookEndpointAttemptsQueryVariables = Exact<{
  id: string | number;
  first: number;
  after: string | null | undefined;
}>;


export type WebhookEndpointAttemptsQuery = { webhookEndpoint: { attempts: { edges: Array<{ node: { id: string, eventId: string, deliveryId: string, attempt: number, startedAt: string, durationMs: number, responseStatus: number | null, error: WebhookAttemptError | null, responseBody: string | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type UpdateWebhookEndpointMutationVariables = Exact<{
  id: string | number;
  input: UpdateWebhookEndpointInput;
}>;


export type UpdateWebhookEndpointMutation = { updateWebhookEndpoint: { id: string, url: string, organizationId: string, events: Array<string>, description: string | null, createdAt: string, status: string, disabledReason: string | null, disabledAt: string | null, rateLimitPerSecond: number | null } };

export type SendTestWebhookMutationVariables = Exact<{
  id: string | number;
}>;


export type SendTestWebhookMutation = { sendTestWebhook: { eventId: string, deliveryId: string } };

export type RedeliverEventMutationVariables = Exact<{
  id: string | number;
  endpointId: string | number;
}>;


export type RedeliverEventMutation = { redeliverEvent: { id: string, eventId: string, endpointId: string, status: string, attempts: number, lastStatus: number | null, lastError: string | null, lastAttemptAt: string | null, nextAttemptAt: string | null, deliveredAt: string | null } };

export type RecoverWebhookEndpointMutationVariables = Exact<{
  id: string | number;
  input: RecoverWebhookEndpointInput;
}>;


export type RecoverWebhookEndpointMutation = { recoverWebhookEndpoint: { queued: number } };

export type DeleteWebhookEndpointMutationVariables = Exact<{
  id: string | number;
}>;


export type DeleteWebhookEndpointMutation = { deleteWebhookEndpoint: string };

export type CreateQuoteMutationVariables = Exact<{
  input: CreateQuoteInput;
}>;


export type CreateQuoteMutation = { createQuote: { id: string, organizationId: string, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, totalPremium: number, currency: string, status: QuoteStatus, expiresAt: string, policyNumber: number | null, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string }> } };

export type QuoteQueryVariables = Exact<{
  id: string | number;
}>;


export type QuoteQuery = { quote: { id: string, organizationId: string, ownerFirstname: string, ownerLastname: string, ownerDOB: string | null, petName: string, petDOB: string | null, effectiveDate: string, expirationDate: string, totalPremium: number, currency: string, status: QuoteStatus, expiresAt: string, policyNumber: number | null, coverage: { slug: string, name: string, deductible: number, reimbursementRate: number, annualLimit: number | null, monthlyPremium: number, currency: string }, charges: Array<{ type: ChargeType, periodStart: string, periodEnd: string, dueDate: string, amount: number, currency: string, status: string }> } | null };

export type CreateApiKeyMutationVariables = Exact<{
  input: CreateApiKeyInput;
}>;


export type CreateApiKeyMutation = { createApiKey: { id: string, name: string, organizationId: string, scopes: Array<string>, prefix: string, createdAt: string, createdBy: string, expiresAt: string, lastUsedAt: string | null, key: string } };

export type RotateApiKeyMutationVariables = Exact<{
  id: string | number;
  input: RotateApiKeyInput | null | undefined;
}>;


export type RotateApiKeyMutation = { rotateApiKey: { id: string, name: string, organizationId: string, scopes: Array<string>, prefix: string, createdAt: string, createdBy: string, expiresAt: string, lastUsedAt: string | null, key: string } };

export type RevokeApiKeyMutationVariables = Exact<{
  id: string | number;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: string };

export type ApiKeyQueryVariables = Exact<{
  id: string | number;
}>;


export type ApiKeyQuery = { apiKey: { id: string, name: string, organizationId: string, scopes: Array<string>, prefix: string, createdAt: string, createdBy: string, expiresAt: string, lastUsedAt: string | null } | null };

export type ApiKeysQueryVariables = Exact<{
  organizationId: string | number | null | undefined;
  first: number;
  after: string | null | undefined;
}>;


export type ApiKeysQuery = { apiKeys: { edges: Array<{ node: { id: string, name: string, organizationId: string, scopes: Array<string>, prefix: string, createdAt: string, createdBy: string, expiresAt: string, lastUsedAt: string | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type AuditLogQueryVariables = Exact<{
  organizationId: string | number | null | undefined;
  actions: Array<string> | string | null | undefined;
  actorSub: string | null | undefined;
  since: string | null | undefined;
  until: string | null | undefined;
  first: number;
  after: string | null | undefined;
}>;


export type AuditLogQuery = { auditLog: { edges: Array<{ node: { id: string, occurredAt: string, action: string, organizationId: string, requestId: string | null, changes: Record<string, unknown> | null, hash: string | null, actor: { sub: string, apiKeyId: string | null, ip: string | null, userAgent: string | null }, targets: Array<{ type: string, id: string }> } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type AuditLogVerificationQueryVariables = Exact<{
  organizationId: string | number | null | undefined;
}>;


export type AuditLogVerificationQuery = { auditLogVerification: { ok: boolean, checked: number, firstBrokenId: string | null } };
