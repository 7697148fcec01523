/**
 * The closed set of a policy's transaction kinds (contract section 14, "Transactions"): every
 * step of a policy's life is one of these. A switch over a kind is checked for exhaustiveness
 * (eslint `switch-exhaustiveness-check`), so a new kind is named by the linter wherever it must
 * be handled: in `apply` (state.ts) and beside each `decide`.
 */
export const TRANSACTION_KINDS = ['issuance', 'change', 'cancellation', 'reinstatement', 'renewal'] as const;
export type TransactionKind = (typeof TRANSACTION_KINDS)[number];

/**
 * Money recorded against a policy (contract section 19): serialized with its transactions and
 * counted in its version, but not one of them (not listed under `transactions`, and no date
 * rule between them).
 */
export const PAYMENT_KINDS = ['payment', 'refund'] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];
