import { graphqlEnum } from '../graphql/graphql-enum.js';

/**
 * What a charge of a policy's ledger is (contract section 14, "Charges are a ledger"): the one
 * list of charge types, and its GraphQL enum (the OpenAPI `enum` is read from that); the
 * database's `charge_type_check` holds the same list.
 */
export const CHARGE_TYPES = ['premium', 'credit', 'fee', 'reversal'] as const;
export type ChargeType = (typeof CHARGE_TYPES)[number];

export const ChargeTypeEnum = graphqlEnum(CHARGE_TYPES, {
  name: 'ChargeType',
  description: 'What a charge of the ledger is',
  values: {
    credit: 'A negative amount: what is no longer owed for its period',
    reversal: 'Undoes the charge named by reverses, with the opposite amount',
  },
});
