import type { WriteColumns, WriteOf } from '../database/write-model.js';
import type { Charge } from './charge.entity.js';
import type { Policy } from './policy.entity.js';
import type { PolicyPayment } from './policy-payment.entity.js';
import type { PolicyTransaction } from './policy-transaction.entity.js';

/**
 * The policy's writes as write models (database/write-model.ts): each property named to its column.
 * Their inserts are the ledger's one writer's (ledger/ledger-write.ts).
 */

/** Left to the database: `created_at`'s default; the organization is written as its id, charges by their own insert. */
type OmittedPolicy = 'organization' | 'charges' | 'createdAt';

export const POLICY_WRITE = {
  id: { column: 'id', type: 'uuid' },
  // Without a number from the client, the next free one (a sequence that skips chosen numbers).
  number: { column: 'number', type: 'bigint', value: (given) => `coalesce(${given}, next_policy_number())` },
  internalID: { column: 'internal_id', type: 'text' },
  organizationId: { column: 'organization_id', type: 'uuid' },
  ownerFirstname: { column: 'owner_firstname', type: 'text' },
  ownerLastname: { column: 'owner_lastname', type: 'text' },
  ownerDOB: { column: 'owner_dob', type: 'date' },
  petName: { column: 'pet_name', type: 'text' },
  petDOB: { column: 'pet_dob', type: 'date' },
  effectiveDate: { column: 'effective_date', type: 'date' },
  expirationDate: { column: 'expiration_date', type: 'date' },
  coverageSlug: { column: 'coverage_slug', type: 'text' },
  coverage: { column: 'coverage', type: 'jsonb' },
  createdBySub: { column: 'created_by_sub', type: 'text' },
  // A renewal's successor names its predecessor (unique: policy_renewal_of_unique); a create, none.
  renewalOfId: { column: 'renewal_of', type: 'uuid' },
} as const satisfies WriteColumns<Policy, OmittedPolicy, 'organizationId'>;

/** A policy's row; `number` null asks for a server-assigned one. */
export type PolicyWrite = WriteOf<Policy, OmittedPolicy | 'number', { number: number | null; organizationId: string }>;

/** Left to the database: the parent reference (written as `policyId`) and `created_at`'s default. */
type OmittedTransaction = 'policy' | 'createdAt';
type OmittedCharge = 'policy';

export const TRANSACTION_WRITE = {
  id: { column: 'id', type: 'uuid' },
  policyId: { column: 'policy_id', type: 'uuid' },
  type: { column: 'type', type: 'text' },
  effectiveDate: { column: 'effective_date', type: 'date' },
  createdBy: { column: 'created_by_sub', type: 'text' },
  changes: { column: 'changes', type: 'jsonb' },
} as const satisfies WriteColumns<PolicyTransaction, OmittedTransaction, 'policyId'>;

export const CHARGE_WRITE = {
  id: { column: 'id', type: 'uuid' },
  policyId: { column: 'policy_id', type: 'uuid' },
  transactionId: { column: 'transaction_id', type: 'uuid' },
  sequence: { column: 'sequence', type: 'smallint' },
  type: { column: 'type', type: 'text' },
  periodStart: { column: 'period_start', type: 'date' },
  periodEnd: { column: 'period_end', type: 'date' },
  dueDate: { column: 'due_date', type: 'date' },
  amount: { column: 'amount', type: 'integer' },
  currency: { column: 'currency', type: 'text' },
  status: { column: 'status', type: 'text' },
  reverses: { column: 'reverses', type: 'uuid' },
} as const satisfies WriteColumns<Charge, OmittedCharge, 'policyId'>;

export type TransactionWrite = WriteOf<PolicyTransaction, OmittedTransaction, { policyId: string }>;
export type ChargeWrite = WriteOf<Charge, OmittedCharge, { policyId: string }>;

/**
 * A `policy_state` row (migration policy_state): what the policy is after one of its
 * transactions, written with it. `validFrom` is `-infinity` for the first transaction (its fields
 * hold from the start), else the transaction's effective date; `fields` are the changeable fields
 * in effect from then on; `cancellation` the one in force after it, `cancelledFrom` its date.
 */
export interface PolicyStateWrite {
  policyId: string;
  version: number;
  /** What made it: a transaction, or (contract section 19) a payment or a refund. */
  transactionId: string | null;
  paymentId: string | null;
  validFrom: string;
  fields: Record<string, unknown>;
  cancellation: object | null;
  cancelledFrom: string | null;
  /** What the charges due on each day sum to (`[date, cents]`, days summing to 0 left out): billing's basis. */
  dues: ReadonlyArray<readonly [string, number]>;
  /** Payments minus refunds. */
  paid: number;
  /** The oldest unpaid due date (billing.ts: oldestUnpaidDueDate), or null. */
  unpaidFrom: string | null;
}

export const STATE_WRITE = {
  policyId: { column: 'policy_id', type: 'uuid' },
  version: { column: 'version', type: 'integer' },
  transactionId: { column: 'transaction_id', type: 'uuid' },
  validFrom: { column: 'valid_from', type: 'date' },
  fields: { column: 'fields', type: 'jsonb' },
  cancellation: { column: 'cancellation', type: 'jsonb' },
  cancelledFrom: { column: 'cancelled_from', type: 'date' },
  paymentId: { column: 'payment_id', type: 'uuid' },
  dues: { column: 'dues', type: 'jsonb' },
  paid: { column: 'paid', type: 'bigint' },
  unpaidFrom: { column: 'unpaid_from', type: 'date' },
} as const satisfies WriteColumns<PolicyStateWrite, never>;

/** Left to the database: the parent reference (written as `policyId`), `seq` and `created_at`'s default. */
type OmittedPayment = 'policy' | 'createdAt';

export const PAYMENT_WRITE = {
  id: { column: 'id', type: 'uuid' },
  policyId: { column: 'policy_id', type: 'uuid' },
  type: { column: 'type', type: 'text' },
  amount: { column: 'amount', type: 'integer' },
  reference: { column: 'reference', type: 'text' },
  date: { column: 'date', type: 'date' },
  createdBy: { column: 'created_by_sub', type: 'text' },
} as const satisfies WriteColumns<PolicyPayment, OmittedPayment, 'policyId'>;

export type PaymentWrite = WriteOf<PolicyPayment, OmittedPayment, { policyId: string }>;
