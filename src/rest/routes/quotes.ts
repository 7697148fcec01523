import { REFUSED_QUOTE_FIELDS } from '../../quotes/quote.input.js';
import type { CreateQuoteMutation, QuoteQuery } from '../generated/operations.js';
import { QUOTE_EXAMPLE } from '../openapi-examples.js';
import { problem } from '../openapi-parts.js';
import { CREATE_QUOTE, QUOTE } from '../operations.js';
import { get, post, type RestRoute } from '../route-entry.js';

/** Quotes (contract section 14, "Quote"). */
export const QUOTE_ROUTES: RestRoute[] = [
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
    doc: {
      operationId: 'createQuote',
      summary: 'Quote a policy: the plan as it is now and the premium schedule issuing would write, kept with the quote',
      description:
        'The policy create’s body without `number`, `cvc` and `internalID`, under the same rules. `charges` is the schedule a ' +
        'policy with this body gets (without ids), `totalPremium` their sum. The quote is `open` until `expiresAt` ' +
        '(creation + QUOTE_VALID_DAYS, default 30), then `expired`; `issued` once a policy is made from it. Records a ' +
        '`quote.created` event.' +
        ' The organization is `organizationId`, else the token’s `org` claim; with neither, 400 (the start-up banner’s token has no claim: on /api/v1/docs, run the organization create first and this example carries its id).',
      tag: 'Quotes',
      body: {
        schema: 'CreateQuoteRequest',
        description:
          'The policy create’s rules: dates are real calendar dates; expirationDate after effectiveDate and at most 5 years later; ' +
          'ownerDOB and petDOB not in the future, petDOB not after effectiveDate. `number`, `cvc` and `internalID` are refused ' +
          '(400 naming each): they are sent when issuing. Any other unknown property is 400 (`is not a field of this request`, with a "did you mean" when a field is within two edits). Without `organizationId` the quote goes to the token’s org.',
        examples: { typical: QUOTE_EXAMPLE },
      },
      answer: { description: 'Quoted', schema: 'Quote' },
      errors: {
        400: problem(
          'The body is not valid JSON, not an object, or breaks the policy create’s rules (at most 100 listed in `errors`); `number`, `cvc` or `internalID` sent (they belong to issuing) is listed by name, any other unknown field as `is not a field of this request` (with a "did you mean" when one is within two edits)',
        ),
        404: problem('`organizationId` (or the token’s org) names no organization the caller may access'),
        409: problem('A request with the same Idempotency-Key is still running'),
      },
    },
  }),
  get<QuoteQuery>({
    path: '/api/v1/quote/:id',
    document: QUOTE,
    variables: ({ params }) => ({ id: params.id }),
    response: (data) => data.quote,
    doc: {
      operationId: 'getQuote',
      summary: 'Read a quote of an organization the caller may access, with its status as of now',
      tag: 'Quotes',
      pathParameter: { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: 'Quote id' },
      answer: { description: 'Found', schema: 'Quote', derive: [] },
      errors: { 404: problem('No such quote, or the caller may not access it') },
    },
  }),
];
