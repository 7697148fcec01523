import { ERROR_STATUS } from '../errors/errors.js';

/**
 * The OpenAPI 3.1 description of the `/api/v1` routes, served at `/api/v1/openapi.json`.
 * Response schemas are closed (`additionalProperties: false`), so the test suite, which checks
 * every REST response it receives against this document, also catches any field that should
 * never appear (a cvc, a full account number). Request schemas give types and required fields;
 * the input rules themselves live on the GraphQL input classes and are described in words.
 */
const nullableString = { type: ['string', 'null'] };
const date = { type: 'string', format: 'date', description: 'YYYY-MM-DD' };
const nullableDate = { type: ['string', 'null'], format: 'date', description: 'YYYY-MM-DD' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const problem = (description: string, headers?: object) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } } };
const rateLimitHeaders = {
  RateLimit: { description: 'IETF draft 11: what is left of each policy, e.g. `"requests";r=5999;t=42`', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'IETF draft 11: the policies counted, e.g. `"requests";q=6000;w=60`', schema: { type: 'string' } },
};

const ERRORS = {
  400: problem('The body is not valid JSON, not an object, or breaks the rules (at most 100 listed in `errors`)'),
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
  403: problem('The organization tree already has its quota of organizations or policies (code QUOTA_EXCEEDED)'),
  404: problem('`parentId` / `organizationId` (or the token’s org) names no organization the caller may access'),
  409: problem('A duplicate policy number, or a request with the same Idempotency-Key still running'),
  413: problem('The body is larger than 100 KB'),
  415: problem('The body is not application/json'),
  422: problem('The Idempotency-Key was already used with a different body (code IDEMPOTENCY_KEY_REUSED)'),
};

/** POSTs accept an Idempotency-Key (contract section 7). */
const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description:
    'Makes retries safe: the first response (unless a 5xx) is kept for 24 hours and replayed to a repeat with the same ' +
    'body (with `Idempotent-Replayed: true`); another body gets 422, a repeat while the first runs gets 409.',
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

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'Organization and Policy service: REST compatibility layer',
    version: '1.0.0',
    description:
      'The four operations of the interface document. Every route needs `Authorization: Bearer <JWT>`. ' +
      'A record the caller may not access answers 404, exactly like a missing one. Errors are RFC 9457 problem details ' +
      'whose `code` equals the GraphQL `extensions.code`.',
  },
  servers: [{ url: '/' }],
  security: [{ bearerAuth: [] }],
  paths: {
    '/api/v1/organization': {
      post: {
        operationId: 'createOrganization',
        summary: 'Create an organization with its address, bank accounts and owners (all or nothing)',
        parameters: [idempotencyKey],
        requestBody: { required: true, content: json(ref('CreateOrganizationRequest')) },
        responses: { 200: { description: 'Created', headers: { ...replayedHeader, ...rateLimitHeaders }, content: json(ref('OrganizationCreated')) }, ...POST_ERRORS },
      },
    },
    '/api/v1/organization/{id}': {
      get: {
        operationId: 'getOrganization',
        summary: 'Read an organization the caller may access',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Organization id (UUID)' }],
        responses: {
          200: { description: 'Found', headers: rateLimitHeaders, content: json(ref('OrganizationSummary')) },
          404: problem('No such organization, or the caller may not access it'),
          ...ERRORS,
        },
      },
    },
    '/api/v1/policy': {
      post: {
        operationId: 'createPolicy',
        summary: 'Create a policy with its coverage snapshot and premium schedule (all or nothing)',
        parameters: [idempotencyKey],
        requestBody: { required: true, content: json(ref('CreatePolicyRequest')) },
        responses: { 200: { description: 'Created', headers: { ...replayedHeader, ...rateLimitHeaders }, content: json(ref('PolicyCreated')) }, ...POST_ERRORS },
      },
    },
    '/api/v1/policy/{id}': {
      get: {
        operationId: 'getPolicy',
        summary: 'Read a policy of an organization the caller may access',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Policy number, 1 to 2^53 - 1' },
        ],
        responses: {
          200: { description: 'Found', headers: rateLimitHeaders, content: json(ref('Policy')) },
          404: problem('No such policy, or the caller may not access it'),
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
        bearerFormat: 'JWT',
        description: 'Claims: `sub` (required), `exp` (required), `org` (optional organization id), `iss`/`aud` when configured.',
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
        type: 'object',
        required: ['legalName', 'legalType', 'taxId'],
        description:
          'Strings at most 255 characters (description 2,000, descriptor 22); required strings not blank; email valid; ' +
          'logo and website absolute http(s) URLs; phone 7–20 of digits, spaces and +-(). ; at most 10 bank accounts and ' +
          '25 owners whose ownership adds up to at most 100. Unknown top-level properties are ignored.',
        properties: {
          name: { ...nullableString, description: 'Defaults to legalName' },
          description: nullableString,
          logo: nullableString,
          type: nullableString,
          descriptor: nullableString,
          legalName: { type: 'string' },
          legalType: { type: 'string' },
          taxId: { type: 'string' },
          phone: nullableString,
          email: nullableString,
          website: nullableString,
          address: { oneOf: [ref('AddressInput'), { type: 'null' }] },
          bankAccounts: { type: ['array', 'null'], maxItems: 10, items: ref('BankAccountInput') },
          owners: { type: ['array', 'null'], maxItems: 25, items: ref('OwnerInput') },
          parentId: { ...nullableString, description: 'Parent organization; defaults to the token’s org, else a root' },
        },
        additionalProperties: true,
      },
      BankAccountInput: {
        type: 'object',
        required: ['routing', 'account'],
        properties: {
          nickname: nullableString,
          routing: { type: 'string', description: '4–34 letters or digits' },
          account: { type: 'string', description: '4–34 letters or digits; stored encrypted, never returned' },
        },
      },
      OwnerInput: {
        type: 'object',
        required: ['firstname', 'lastname'],
        properties: {
          firstname: { type: 'string' },
          lastname: { type: 'string' },
          birthdate: { ...nullableDate, description: 'YYYY-MM-DD, not in the future' },
          taxId: { ...nullableString, description: 'Stored encrypted, never returned in full' },
          email: nullableString,
          phone: nullableString,
          ownership: { type: ['number', 'null'], description: 'Percentage, 0 < ownership ≤ 100' },
          address: { oneOf: [ref('AddressInput'), { type: 'null' }] },
        },
      },
      OrganizationSummary: {
        type: 'object',
        required: ['id', 'name', 'parentId'],
        properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, parentId: { type: ['string', 'null'], format: 'uuid' } },
        additionalProperties: false,
      },
      BankAccount: {
        type: 'object',
        required: ['id', 'nickname', 'routing', 'accountLast4'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          nickname: nullableString,
          routing: { type: 'string' },
          accountLast4: { type: 'string', maxLength: 4 },
        },
        additionalProperties: false,
      },
      Owner: {
        type: 'object',
        required: ['id', 'firstname', 'lastname', 'birthdate', 'taxIdLast4', 'email', 'phone', 'ownership', 'address'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          firstname: { type: 'string' },
          lastname: { type: 'string' },
          birthdate: nullableDate,
          taxIdLast4: { type: ['string', 'null'], maxLength: 4 },
          email: nullableString,
          phone: nullableString,
          ownership: { type: ['number', 'null'] },
          address: { oneOf: [ref('Address'), { type: 'null' }] },
        },
        additionalProperties: false,
      },
      OrganizationCreated: {
        type: 'object',
        required: [
          'id', 'name', 'parentId', 'legalName', 'legalType', 'taxId', 'description', 'logo', 'type', 'descriptor',
          'phone', 'email', 'website', 'address', 'bankAccounts', 'owners',
        ],
        properties: {
          id: { type: 'string', format: 'uuid' },
          name: { type: 'string' },
          parentId: { type: ['string', 'null'], format: 'uuid' },
          legalName: { type: 'string' },
          legalType: { type: 'string' },
          taxId: { type: 'string' },
          description: nullableString,
          logo: nullableString,
          type: nullableString,
          descriptor: nullableString,
          phone: nullableString,
          email: nullableString,
          website: nullableString,
          address: { oneOf: [ref('Address'), { type: 'null' }] },
          bankAccounts: { type: 'array', items: ref('BankAccount') },
          owners: { type: 'array', items: ref('Owner') },
        },
        additionalProperties: false,
      },
      CreatePolicyRequest: {
        type: 'object',
        required: ['ownerFirstname', 'ownerLastname', 'petName', 'effectiveDate', 'expirationDate', 'coverageSlug'],
        description:
          'Dates are real calendar dates; expirationDate after effectiveDate and at most 5 years later; ownerDOB and petDOB ' +
          'not in the future, petDOB not after effectiveDate. Unknown top-level properties are ignored.',
        properties: {
          internalID: nullableString,
          number: { type: ['integer', 'null'], minimum: 1, maximum: 9007199254740991, description: 'Assigned by the server when absent' },
          cvc: { ...nullableString, description: '3 or 4 digits; validated, then discarded (never stored or returned)' },
          ownerFirstname: { type: 'string' },
          ownerLastname: { type: 'string' },
          ownerDOB: nullableDate,
          petName: { type: 'string' },
          petDOB: nullableDate,
          effectiveDate: date,
          expirationDate: { ...date, description: 'YYYY-MM-DD, exclusive end of cover' },
          coverageSlug: {
            type: 'string',
            examples: ['accident-only', 'accident-illness-basic', 'accident-illness-plus', 'accident-illness-unlimited'],
          },
          organizationId: { ...nullableString, description: 'Owning organization; defaults to the token’s org' },
        },
        additionalProperties: true,
      },
      Coverage: {
        type: 'object',
        description: 'The plan as it was when the policy was created. Amounts in cents.',
        required: ['slug', 'name', 'deductible', 'reimbursementRate', 'annualLimit', 'monthlyPremium', 'currency'],
        properties: {
          slug: { type: 'string' },
          name: { type: 'string' },
          deductible: { type: 'integer' },
          reimbursementRate: { type: 'number' },
          annualLimit: { type: ['integer', 'null'], description: 'null: no limit' },
          monthlyPremium: { type: 'integer' },
          currency: { type: 'string' },
        },
        additionalProperties: false,
      },
      Charge: {
        type: 'object',
        required: ['id', 'type', 'periodStart', 'periodEnd', 'dueDate', 'amount', 'currency', 'status'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          type: { type: 'string', const: 'premium' },
          periodStart: date,
          periodEnd: { ...date, description: 'Exclusive' },
          dueDate: date,
          amount: { type: 'integer', description: 'Cents' },
          currency: { type: 'string' },
          status: { type: 'string', const: 'scheduled' },
        },
        additionalProperties: false,
      },
      PolicyCreated: {
        type: 'object',
        required: [
          'internalID', 'number', 'ownerFirstname', 'ownerLastname', 'ownerDOB', 'petName', 'petDOB', 'effectiveDate',
          'expirationDate', 'coverageSlug', 'coverage', 'charges', 'organization',
        ],
        properties: {
          internalID: nullableString,
          number: { type: 'integer' },
          ownerFirstname: { type: 'string' },
          ownerLastname: { type: 'string' },
          ownerDOB: nullableDate,
          petName: { type: 'string' },
          petDOB: nullableDate,
          effectiveDate: date,
          expirationDate: date,
          coverageSlug: { type: 'string' },
          coverage: ref('Coverage'),
          charges: { type: 'array', items: ref('Charge') },
          organization: ref('OrganizationSummary'),
        },
        additionalProperties: false,
      },
      Policy: {
        type: 'object',
        required: ['number', 'coverage', 'charges', 'organization'],
        properties: {
          number: { type: 'integer' },
          coverage: ref('Coverage'),
          charges: { type: 'array', items: ref('Charge') },
          organization: ref('OrganizationSummary'),
        },
        additionalProperties: false,
      },
    },
  },
} as const;
