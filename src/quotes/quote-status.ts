import { graphqlEnum } from '../graphql/graphql-enum.js';

/**
 * Where a quote stands (contract section 14, "Quotes"): the one list, its GraphQL enum, and the
 * OpenAPI `enum` read from that. quote.reads.ts computes it when read (QUOTE_STATUS).
 */
export const QUOTE_STATUSES = ['open', 'issued', 'expired'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];

export const QuoteStatusEnum = graphqlEnum(QUOTE_STATUSES, {
  name: 'QuoteStatus',
  description: 'Where a quote stands, as of the read',
  values: {
    open: 'It can be issued',
    issued: 'A policy was issued from it (policyNumber)',
    expired: 'expiresAt has passed without it being issued',
  },
});
