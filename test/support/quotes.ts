import { policyBody } from './fixtures.js';

/** Quotes (contract section 14) in tests: a quote's body is the policy create's, without what a quote refuses. */
export const quoteBody = (overrides: Record<string, unknown> = {}) => policyBody(overrides);

const QUOTE_FIELDS = `id organizationId ownerFirstname ownerLastname ownerDOB petName petDOB effectiveDate expirationDate
  coverage { slug name deductible reimbursementRate annualLimit monthlyPremium currency }
  charges { type periodStart periodEnd dueDate amount currency status }
  totalPremium currency status expiresAt policyNumber`;
export const CREATE_QUOTE = `mutation ($input: CreateQuoteInput!) { createQuote(input: $input) { ${QUOTE_FIELDS} } }`;
export const READ_QUOTE = `query ($id: ID!) { quote(id: $id) { ${QUOTE_FIELDS} } }`;
