import { POLICY_FILTER_PARAMETERS, policyFilterVariables } from '../../policies/policy-filters.js';
import { TRANSACTION_TYPES } from '../../policies/policy-transaction.entity.js';
import { QUOTED_FIELDS, REQUIRED_UNLESS_QUOTED } from '../../policies/policy.input.js';
import { policyNotFound, STATUS_FILTER_WALK } from '../../policies/policy.reads.js';
import { targetOrganizationId } from '../../organizations/organization.reads.js';
import { parsePolicyNumber } from '../../values/identifiers.js';
import type {
  CancelPolicyMutation,
  ChangePolicyMutation,
  CreatePolicyMutation,
  PoliciesQuery,
  PolicyQuery,
  PolicyTransactionsQuery,
  ReinstatePolicyMutation,
  RenewPolicyMutation,
} from '../generated/operations.js';
import { listBody, PAGE_PARAMETERS, pageVariables } from '../list-page.js';
import {
  CANCEL_EXAMPLE,
  CHANGE_EXAMPLE,
  ISSUE_EXAMPLE,
  POLICY_EXAMPLE,
  RENEW_EXAMPLE,
  RENEWABLE_POLICY_EXAMPLE,
} from '../openapi-examples.js';
import { problem } from '../openapi-parts.js';
import {
  CANCEL_POLICY,
  CHANGE_POLICY,
  CREATE_POLICY,
  POLICIES,
  POLICY,
  POLICY_TRANSACTIONS,
  REINSTATE_POLICY,
  RENEW_POLICY,
} from '../operations.js';
import { booleanParameter, organizationIdParameter, refuseAlongside, SEARCH_PARAMETER, singleParameter } from '../query-parameters.js';
import { get, post, type RestRoute, type RestRequest } from '../route-entry.js';

/** A policy's number in the path (contract section 5). */
export const policyNumberInPath = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'integer', minimum: 1, maximum: 9007199254740991 },
  description: 'Policy number; anything else answers 404',
};

/** The errors of a step in a policy's life besides those of every create (contract section 14). */
export const POLICY_LIFECYCLE_ERRORS = {
  400: problem(
    'The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`); a field the body does not have is listed as `is not a field of this request`, with `; did you mean "<field>"?` when one is within two edits',
  ),
  404: problem('No such policy, or the caller may not access it'),
  409: problem(
    'Code INVALID_STATE: the policy is not in a state for it (see the route), or `effectiveDate` is outside the term or before its latest transaction; or a request with the same Idempotency-Key is still running',
  ),
};

/** What a policy step's answer is: the policy, with its new version. */
const policyAnswer = (description: string) => ({ description, schema: 'Policy' });

/** Policies and the steps of their life (contract sections 5, 10, 14 and 18). */
export const POLICY_ROUTES: RestRoute[] = [
  post<CreatePolicyMutation>({
    path: '/api/v1/policy',
    document: CREATE_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    response: (data) => data.createPolicy,
    doc: {
      operationId: 'createPolicy',
      summary: 'Create a policy with its coverage snapshot and premium schedule (all or nothing), or issue a quote',
      description:
        'With `quoteId` (and optionally `number`, `cvc`, `internalID`), issues that open quote: the policy’s fields, coverage ' +
        'and charges are the quote’s, at the quoted price even if the catalog has changed since; the quote then reads `issued` ' +
        'with its `policyNumber`. Sending a quoted field again is 400 naming it; a quote already issued or expired is 409 `INVALID_STATE`.' +
        ' The organization is `organizationId`, else the token’s `org` claim; with neither, 400 (the start-up banner’s token has no claim: on /api/v1/docs, run the organization create first and this example carries its id).',
      tag: 'Policies',
      body: {
        schema: 'CreatePolicyRequest',
        // A new policy's body, or a quote to issue: GraphQL cannot say "required unless quoteId".
        rules: {
          oneOf: [
            { required: [...REQUIRED_UNLESS_QUOTED], not: { required: ['quoteId'] } },
            { required: ['quoteId'], not: { anyOf: QUOTED_FIELDS.map((field) => ({ required: [field] })) } },
          ],
        },
        description:
          'Either a new policy (its required fields, no `quoteId`) or a quote to issue (`quoteId`, optionally `number`, `cvc` ' +
          'and `internalID`, and none of the quoted fields). Dates are real calendar dates; expirationDate after effectiveDate and at most 5 years later; ownerDOB and petDOB ' +
          'not in the future, petDOB not after effectiveDate. An unknown property is 400, listed with the other errors as `is not a field of this request`, with `; did you mean "<field>"?` when a field is within two edits of it. Without `organizationId` the policy goes to the token’s org.',
        examples: { typical: POLICY_EXAMPLE, issueQuote: ISSUE_EXAMPLE, renewable: RENEWABLE_POLICY_EXAMPLE },
      },
      answer: { description: 'Created', schema: 'PolicyCreated', derive: [] },
      errors: {
        400: problem(
          'The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`, an unknown `coverageSlug` among them); a field the body does not have is listed as `is not a field of this request`, with `; did you mean "<field>"?` when one is within two edits; with `quoteId`, each quoted field sent again is listed by name',
        ),
        403: problem('The organization tree already has its quota of policies (code QUOTA_EXCEEDED)'),
        404: problem(
          '`organizationId` (or the token’s org) names no organization the caller may access; with `quoteId`, no such quote or one the caller may not access',
        ),
        409: problem(
          'The policy `number` is taken, or a request with the same Idempotency-Key is still running (code CONFLICT); the quote of `quoteId` is already issued or has expired (code INVALID_STATE)',
        ),
      },
    },
  }),
  get<PoliciesQuery>({
    path: '/api/v1/policy',
    document: POLICIES,
    query: [
      organizationIdParameter(
        'Whose policies; without it, the token’s org (a token without one must send it). With `q`: search only its subtree',
      ),
      {
        name: 'includeDescendants',
        schema: { type: 'boolean', default: false },
        description: 'Also every descendant’s policies',
      },
      {
        name: 'internalID',
        schema: { type: 'string' },
        description:
          'Find by the integrator’s own key (exact), among every policy the caller may access (with the filters, `limit` and `after`)',
      },
      SEARCH_PARAMETER,
      ...POLICY_FILTER_PARAMETERS,
      ...PAGE_PARAMETERS,
    ],
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
    doc: {
      operationId: 'listPolicies',
      summary: 'List the policies of an organization, or of its whole subtree; find policies by internalID; or search them',
      description:
        'The policies of `organizationId` (default: the token’s org), or with `includeDescendants=true` those of it and ' +
        'every organization below it. With `internalID` instead: the policies created with that internalID (exact) among ' +
        'every policy the caller may access, wherever they are (one out of reach is not listed; none found is an empty page); ' +
        '`organizationId`, `includeDescendants` and `q` cannot be combined with it (400). With `q`: a search of every policy ' +
        'the caller may access, or of `organizationId`’s subtree, by owner name, pet name and internalID (typos forgiven), and ' +
        'a `q` of digits by number (that policy first); best match first, then newest (`includeDescendants` cannot be combined with it). ' +
        'Otherwise oldest first. A page at a time: pass `nextCursor` as `after` while `hasMore`. The filters (`status`, ' +
        '`coverageSlug`, `billingStatus`, `effectiveFrom`, `effectiveTo`) combine with AND, on a list, by internalID and in a search. ' +
        `With a filter, or a search below the top of a tree, a page walks at most ${STATUS_FILTER_WALK} policies: it may come back short, even empty, ` +
        `with \`hasMore\` true and a \`nextCursor\` past it; keep following \`nextCursor\` while \`hasMore\`.`,
      tag: 'Policies',
      answer: { description: 'A page', list: 'PolicyList', schema: 'PolicyListItem', derive: ['policies', 'edges', 'node'] },
      errors: { 404: problem('`organizationId` (or the token’s org) names no organization the caller may access') },
    },
  }),
  get<PolicyQuery>({
    path: '/api/v1/policy/:id',
    document: POLICY,
    etag: true,
    variables: ({ params }) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.policy,
    doc: {
      operationId: 'getPolicy',
      summary: 'Read a policy of an organization the caller may access',
      tag: 'Policies',
      pathParameter: policyNumberInPath,
      answer: { description: 'Found', schema: 'Policy', derive: [] },
      errors: { 404: problem('No such policy, or the caller may not access it') },
    },
  }),
  get<PolicyTransactionsQuery>({
    path: '/api/v1/policy/:id/transactions',
    document: POLICY_TRANSACTIONS,
    query: PAGE_PARAMETERS,
    variables: ({ params, query }) => ({ number: policyNumberParameter(params), ...pageVariables(query) }),
    response: (data) => listBody(data.policy!.transactions),
    doc: {
      operationId: 'listPolicyTransactions',
      summary: 'List the transactions of a policy, oldest first',
      description:
        `Each step in the policy’s life (${TRANSACTION_TYPES.join(', ')}) with the day it takes effect, ` +
        'who made it and the fields it changed. Every charge names its transaction (`transactionId`). Pass `nextCursor` as `after` while `hasMore`.',
      tag: 'Policies',
      pathParameter: policyNumberInPath,
      answer: {
        description: 'A page',
        list: 'PolicyTransactionList',
        schema: 'PolicyTransaction',
        derive: ['transactions', 'edges', 'node'],
      },
      errors: { 404: problem('No such policy, or the caller may not access it') },
    },
  }),
  post<ChangePolicyMutation>({
    path: '/api/v1/policy/:id/changes',
    document: CHANGE_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.changePolicy,
    doc: {
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
      tag: 'Policies',
      pathParameter: policyNumberInPath,
      body: { schema: 'ChangePolicyRequest', examples: { typical: CHANGE_EXAMPLE } },
      answer: policyAnswer('Changed (or scheduled to be)'),
      errors: POLICY_LIFECYCLE_ERRORS,
    },
  }),
  post<CancelPolicyMutation>({
    path: '/api/v1/policy/:id/cancellation',
    document: CANCEL_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.cancelPolicy,
    doc: {
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
      tag: 'Policies',
      pathParameter: policyNumberInPath,
      body: { schema: 'CancelPolicyRequest', examples: { typical: CANCEL_EXAMPLE } },
      answer: policyAnswer('Cancelled (or scheduled to be)'),
      errors: POLICY_LIFECYCLE_ERRORS,
    },
  }),
  post<ReinstatePolicyMutation>({
    path: '/api/v1/policy/:id/reinstatement',
    document: REINSTATE_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.reinstatePolicy,
    doc: {
      operationId: 'reinstatePolicy',
      summary: 'Undo the policy’s cancellation',
      description:
        'One `reinstatement` transaction owning a `reversal` of each charge of the cancellation (`reverses`: its id; the opposite ' +
        'amount): afterwards `cancellation` is null and the charges sum to what they did before it. Only while the cancellation ' +
        'lies in the future or took effect at most POLICY_REINSTATEMENT_DAYS (default 30) ago, and not for `fraud`; else (or ' +
        'without a cancellation) 409 INVALID_STATE. Records a `policy.reinstated` event.',
      tag: 'Policies',
      pathParameter: policyNumberInPath,
      body: { schema: 'ReinstatePolicyRequest', description: 'Send `{}`', examples: { typical: {} } },
      answer: policyAnswer('Reinstated'),
      errors: POLICY_LIFECYCLE_ERRORS,
    },
  }),
  post<RenewPolicyMutation>({
    path: '/api/v1/policy/:id/renewal',
    document: RENEW_POLICY,
    etag: true,
    closedBody: true,
    bodyVariable: 'input',
    pathVariables: (params) => ({ number: policyNumberParameter(params) }),
    response: (data) => data.renewPolicy,
    doc: {
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
      tag: 'Policies',
      pathParameter: policyNumberInPath,
      body: {
        schema: 'RenewPolicyRequest',
        description: 'Both optional: `{}` renews on the current plan with a number the server assigns',
        examples: { typical: RENEW_EXAMPLE, currentPlan: {} },
      },
      answer: policyAnswer('Renewed: the new policy'),
      errors: {
        ...POLICY_LIFECYCLE_ERRORS,
        403: problem('The organization tree already has its quota of policies: the successor is one more (code QUOTA_EXCEEDED)'),
        409: problem(
          'Code INVALID_STATE: before the renewal window, cancelled or with a cancellation scheduled, or already renewed; code CONFLICT: `number` is taken, or a request with the same Idempotency-Key is still running',
        ),
      },
    },
  }),
];

/** The policy number of the path; not a policy number at all is the same 404 as a missing policy, without a query. */
export function policyNumberParameter(params: RestRequest['params']): number {
  const number = parsePolicyNumber(String(params.id));
  if (number === null) throw policyNotFound();
  return number;
}
