import { addDays, addMonthsClamped, todayUtc } from '../values/calendar-date.js';

/**
 * Request bodies the OpenAPI document shows, most of which succeed as they are (test/e2e/openapi.test.ts
 * sends them). The policy and quote ones need the token's `org`, or an `organizationId`: the REST
 * reference page puts in the id of the organization its "Try it out" created (developer-pages.ts),
 * so that they run with the start-up banner's token too.
 */
export const ORGANIZATION_EXAMPLE = {
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
export const ORGANIZATION_PATCH_EXAMPLE = {
  email: null,
  phone: '+1 413 555 0100',
  address: { line1: '200 Elm St', suite: null },
  owners: [
    { firstname: 'Rosa', lastname: 'Diaz', ownership: 50, taxId: '123-45-6789' },
    { firstname: 'Sam', lastname: 'Diaz', ownership: 50 },
  ],
};
/** A change to a webhook endpoint: another filter and description, and a rate limit. */
export const WEBHOOK_ENDPOINT_PATCH_EXAMPLE = {
  events: ['policy.created', 'policy.cancelled'],
  description: 'policy feed for the data warehouse',
  rateLimitPerSecond: 50,
};
/** Issuing a quote: its id (this one is made up), and what issuing may add. */
export const ISSUE_EXAMPLE = { quoteId: '0f9d4c52-2c1e-4b8e-9d4a-6f1c2b3a4d5e', internalID: 'ext-002', cvc: '123' };

/**
 * The policy examples' dates are set when the service starts (a term from that day for a year,
 * a cancellation a month in), so that the quote, the policy, its cancellation and its
 * reinstatement each succeed as written, whatever the day. The renewal's needs a policy in its
 * renewal window: the create's `renewable` example ends 30 days after that day (inside the
 * default 60-day window, and any window of 30 days or more).
 */
const EXAMPLE_START = todayUtc();
export const QUOTE_EXAMPLE = {
  ownerFirstname: 'Rosa',
  ownerLastname: 'Diaz',
  petName: 'Biscuit',
  petDOB: '2022-05-01',
  effectiveDate: EXAMPLE_START,
  expirationDate: addDays(EXAMPLE_START, 365),
  coverageSlug: 'accident-illness-basic',
};
export const POLICY_EXAMPLE = { internalID: 'ext-001', cvc: '123', ...QUOTE_EXAMPLE };
export const CANCEL_EXAMPLE = { effectiveDate: addDays(EXAMPLE_START, 30), reason: 'insured_request' };
/** A new pet name and plan from the third billing date (after the example cancellation and its reinstatement, a month in). */
export const CHANGE_EXAMPLE = {
  effectiveDate: addMonthsClamped(EXAMPLE_START, 2),
  petName: 'Biscuit Diaz',
  coverageSlug: 'accident-illness-plus',
};
export const RENEWABLE_POLICY_EXAMPLE = {
  ...POLICY_EXAMPLE,
  internalID: 'ext-003',
  effectiveDate: addDays(EXAMPLE_START, -335),
  expirationDate: addDays(EXAMPLE_START, 30),
};
export const RENEW_EXAMPLE = { coverageSlug: 'accident-illness-plus' };
/**
 * Two months paid ahead, then one of them paid back: the payment leaves a credit of one month's
 * premium (the example plan's 2,900) on the day the example policy starts, which the refund takes.
 */
export const PAYMENT_EXAMPLE = { amount: 5800, reference: 'pi_example_0001' };
export const REFUND_EXAMPLE = { amount: 2900, reference: 're_example_0001' };
export const API_KEY_EXAMPLE = { name: 'nightly billing batch', scopes: ['policies:read', 'billing:write'], expiresInDays: 90 };
