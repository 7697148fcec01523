import type { PolicyPaymentsQuery, RecordPaymentMutation, RecordRefundMutation } from '../generated/operations.js';
import { listBody, PAGE_PARAMETERS, pageVariables } from '../list-page.js';
import { PAYMENT_EXAMPLE, REFUND_EXAMPLE } from '../openapi-examples.js';
import { problem } from '../openapi-parts.js';
import { POLICY_PAYMENTS, RECORD_PAYMENT, RECORD_REFUND } from '../operations.js';
import { get, post, type RestRoute } from '../route-entry.js';
import { POLICY_LIFECYCLE_ERRORS, policyNumberInPath, policyNumberParameter } from './policies.js';

/** A payment's and a refund's errors (contract section 19). */
const PAYMENT_ERRORS = {
  ...POLICY_LIFECYCLE_ERRORS,
  409: problem(
    'Code CONFLICT: `reference` is already used by a payment or refund of this policy, or a request with the same Idempotency-Key is still running; code INVALID_STATE (a refund): the amount exceeds the credit balance',
  ),
};

/** Payments and refunds a policy's integrator records (contract section 19). */
export const BILLING_ROUTES: RestRoute[] = [
  post<RecordPaymentMutation>({
    path: '/api/v1/policy/:id/payments',
    document: RECORD_PAYMENT,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.recordPayment,
    doc: {
      operationId: 'recordPayment',
      summary: 'Record money received for a policy',
      description:
        'The integrator collects premiums through its own payment provider and records each payment here (contract section ' +
        '19): `amount` in cents (1 to 100,000,000), `reference` the provider’s id (1-100 printable characters, unique among ' +
        'the policy’s payments and refunds: 409 CONFLICT), `receivedOn` not in the future (default today, UTC). Accepted in ' +
        'every status. `billing.paid` rises by the amount and the version by one. Records a `policy.payment_recorded` event.',
      tag: 'Billing',
      pathParameter: policyNumberInPath,
      body: { schema: 'RecordPaymentRequest', examples: { typical: PAYMENT_EXAMPLE } },
      answer: { description: 'Recorded: the policy, with its billing summary', schema: 'Policy' },
      errors: PAYMENT_ERRORS,
    },
  }),
  get<PolicyPaymentsQuery>({
    path: '/api/v1/policy/:id/payments',
    document: POLICY_PAYMENTS,
    query: PAGE_PARAMETERS,
    variables: ({ params, query }) => ({ number: policyNumberParameter(params), ...pageVariables(query) }),
    response: (data) => listBody(data.policy!.payments),
    doc: {
      operationId: 'listPolicyPayments',
      summary: 'List the payments and refunds of a policy, oldest first',
      description: 'Both kinds in the order they were recorded (`type`: payment or refund). Pass `nextCursor` as `after` while `hasMore`.',
      tag: 'Billing',
      pathParameter: policyNumberInPath,
      answer: { description: 'A page', list: 'PolicyPaymentList', schema: 'PolicyPayment', derive: ['payments', 'edges', 'node'] },
      errors: { 404: problem('No such policy, or the caller may not access it') },
    },
  }),
  post<RecordRefundMutation>({
    path: '/api/v1/policy/:id/refunds',
    document: RECORD_REFUND,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.recordRefund,
    doc: {
      operationId: 'recordRefund',
      summary: 'Record money paid back to the policyholder',
      description:
        'At most the credit balance when recorded (`-billing.balance` when negative: paid more than billed, e.g. after a ' +
        'cancellation’s credits), else 409 INVALID_STATE; refunds racing on one policy are judged one after the other, so ' +
        'together they never exceed it. `amount` in cents (1 to 100,000,000), `reference` unique among the policy’s payments ' +
        'and refunds (409 CONFLICT), `paidOn` not in the future (default today, UTC). Records a `policy.refund_recorded` event.',
      tag: 'Billing',
      pathParameter: policyNumberInPath,
      body: { schema: 'RecordRefundRequest', examples: { typical: REFUND_EXAMPLE } },
      answer: { description: 'Recorded: the policy, with its billing summary', schema: 'Policy' },
      errors: PAYMENT_ERRORS,
    },
  }),
];
