import { Arg, Args, Authorized, Ctx, FieldResolver, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { GraphQLResolveInfo } from 'graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { chargesOf, findAccessiblePolicy, policyNotFound } from './policy.reads.js';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Write } from '../graphql/write.js';
import { Organization } from '../organizations/organization.entity.js';
import { Charge } from './charge.entity.js';
import { CoveragePlan } from './coverage-plan.entity.js';
import { readCoverages } from './coverage.reads.js';
import { Policy } from './policy.entity.js';
import type { ChargeRead, PolicyRead } from './policy.reads.js';
import { MAX_CHARGES } from './ledger/premium-schedule.js';
import { listCost } from '../graphql/list-cost.js';
import { chargeBeyondEstimate } from '../graphql/cost-meter.js';
import { organizationById, organizationNotFound, type OrganizationRead } from '../organizations/organization.reads.js';
import { ConnectionType, PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import { PolicyTransaction, TRANSACTION_TYPES } from './policy-transaction.entity.js';
import { transactionPages, type TransactionRead } from './policy-transaction.reads.js';

import { PolicyStatus, policyStatus } from './policy-status.js';
import { PolicyCancellation } from './policy-cancellation.type.js';
import { CancelPolicyInput, ChangePolicyInput, ReinstatePolicyInput, RenewPolicyInput } from './policy-lifecycle.input.js';
import { cancelPolicy } from './cancel-policy.js';
import { changePolicy } from './change-policy.js';
import { reinstatePolicy } from './reinstate-policy.js';
import { renewPolicy } from './renew-policy.js';
import { MAX_LEDGER_CHARGES } from './ledger/ledger-room.js';
import { ledgerScope } from './ledger/ledger-scope.js';
import { PolicyPayment } from './policy-payment.entity.js';
import { RecordPaymentInput, RecordRefundInput } from './policy-payment.input.js';
import { paymentPages, type PaymentRead } from './policy-payment.reads.js';
import { PolicyBilling, policyBilling } from './policy-billing.js';
import { recordPayment } from './record-payment.js';
import type { Billing } from './ledger/billing.js';

const PolicyTransactionConnection = ConnectionType('PolicyTransaction', PolicyTransaction);
const PolicyPaymentConnection = ConnectionType('PolicyPayment', PolicyPayment);

@Resolver(() => Policy)
export class PolicyResolver {
  @Authorized()
  @Scoped('policies:read')
  @Query(() => Policy, {
    nullable: true,
    description: 'A policy of an organization the caller may access; else null and NOT_FOUND',
  })
  async policy(
    @Arg('number', () => GraphQLSafeInt) number: number,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyRead> {
    const policy = await findAccessiblePolicy(ctx.db, principal, number);
    if (!policy) throw policyNotFound();
    return policy;
  }

  @Authorized()
  @Scoped('policies:read')
  @Query(() => [CoveragePlan], { description: 'The coverage catalog, cheapest first' })
  coverages(@Ctx() ctx: RequestContext): Promise<CoveragePlan[]> {
    return readCoverages(ctx.db);
  }

  @Authorized()
  @Scoped('policies:write')
  @Write({ budget: 'creates', readBack: 'policy', record: 'number' })
  @Mutation(() => Policy, {
    description:
      "Changes the pet's or the owner's fields, or the plan (on a billing date: a credit of -net(P) and a premium at the new price for every later period), from effectiveDate; reads show it once in effect; 409 INVALID_STATE when cancelled, scheduled to be, or expired",
  })
  changePolicy(
    @Arg('number', () => GraphQLSafeInt) number: number,
    @Arg('input', () => ChangePolicyInput) input: ChangePolicyInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyRead> {
    return changePolicy(ledgerScope(ctx, principal), number, input);
  }

  @Authorized()
  @Scoped('policies:write')
  @Write({ budget: 'creates', readBack: 'policy', record: 'number' })
  @Mutation(() => Policy, {
    description:
      'Cancels a policy from effectiveDate: a credit per schedule period still running (flat for free_look, short_rate with a fee for insured_request, else pro_rata); 409 INVALID_STATE when cancelled, scheduled to be, or expired',
  })
  cancelPolicy(
    @Arg('number', () => GraphQLSafeInt) number: number,
    @Arg('input', () => CancelPolicyInput) input: CancelPolicyInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyRead> {
    return cancelPolicy(ledgerScope(ctx, principal), number, input);
  }

  @Authorized()
  @Scoped('policies:write')
  @Write({ budget: 'creates', readBack: 'policy', record: 'number' })
  @Mutation(() => Policy, {
    description:
      'Undoes the cancellation (a reversal of each of its charges) while it lies in the future or took effect at most POLICY_REINSTATEMENT_DAYS ago, unless for fraud; else 409 INVALID_STATE',
  })
  reinstatePolicy(
    @Arg('number', () => GraphQLSafeInt) number: number,
    @Arg('input', () => ReinstatePolicyInput) _input: ReinstatePolicyInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyRead> {
    return reinstatePolicy(ledgerScope(ctx, principal), number);
  }

  @Authorized()
  @Scoped('policies:write')
  @Write({ budget: 'creates', readBack: 'policy', record: 'number' })
  @Mutation(() => Policy, {
    description:
      "Renews a policy: a successor (same organization, owner and pet) from its expirationDate for one year, on coverageSlug or the current plan at today's catalog price; answers the new policy. From POLICY_RENEWAL_WINDOW_DAYS before expirationDate until POLICY_RENEWAL_LATE_DAYS after it, for a policy not cancelled, with none scheduled and not renewed; else 409 INVALID_STATE",
  })
  renewPolicy(
    @Arg('number', () => GraphQLSafeInt) number: number,
    @Arg('input', () => RenewPolicyInput) input: RenewPolicyInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyRead> {
    return renewPolicy(ledgerScope(ctx, principal), number, input);
  }

  @Authorized()
  @Scoped('billing:write')
  @Write({ budget: 'creates', readBack: 'policy', record: 'number' })
  @Mutation(() => Policy, {
    description:
      "Records money received for a policy, in any status (contract section 19): billing's paid rises; reference is unique among the policy's payments and refunds (409 CONFLICT)",
  })
  recordPayment(
    @Arg('number', () => GraphQLSafeInt) number: number,
    @Arg('input', () => RecordPaymentInput) input: RecordPaymentInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyRead> {
    return recordPayment(ledgerScope(ctx, principal), number, 'payment', { ...input, date: input.receivedOn });
  }

  @Authorized()
  @Scoped('billing:write')
  @Write({ budget: 'creates', readBack: 'policy', record: 'number' })
  @Mutation(() => Policy, {
    description:
      "Records money paid back (contract section 19): at most the credit balance (-billing.balance) when recorded, else 409 INVALID_STATE; reference is unique among the policy's payments and refunds (409 CONFLICT)",
  })
  recordRefund(
    @Arg('number', () => GraphQLSafeInt) number: number,
    @Arg('input', () => RecordRefundInput) input: RecordRefundInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<PolicyRead> {
    return recordPayment(ledgerScope(ctx, principal), number, 'refund', { ...input, date: input.paidOn });
  }

  @FieldResolver(() => PolicyBilling, {
    description: 'What is billed, paid and owed today (UTC), and what falls due next (contract section 19)',
  })
  billing(@Root() policy: PolicyRead, @Ctx() ctx: RequestContext): Billing {
    return policyBilling(policy, ctx.policyRules.billingGraceDays);
  }

  @FieldResolver(() => PolicyPaymentConnection, { description: "The policy's payments and refunds, oldest first" })
  async payments(
    @Root() policy: PolicyRead,
    @Args(() => PageArgs) args: PageArgs,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<PaymentRead>> {
    const { first, after } = pagePosition('payment', args);
    return toConnection('payment', await ctx.load(paymentPages, { ownerId: policy.id, first, after }), after);
  }

  // Counted at the schedule's size; a longer ledger is charged as it is read (chargeBeyondEstimate),
  // unless the page that listed the policy paid for it already (policy-page-cost.ts).
  @FieldResolver(() => [Charge], {
    description: 'The ledger: the premium schedule, then what each later transaction added, in order',
    complexity: listCost(MAX_CHARGES),
  })
  charges(@Root() policy: PolicyRead, @Ctx() ctx: RequestContext, @Info() info: GraphQLResolveInfo): ChargeRead[] | Promise<ChargeRead[]> {
    const metered = (charges: ChargeRead[]) => {
      chargeBeyondEstimate(ctx.cost, policy, charges.length, MAX_CHARGES, info);
      return charges;
    };
    // Loaded for a page's policy: no more rows than the page counted (policy.reads.ts, CHARGES_BY_POLICY).
    return policy.charges
      ? metered(policy.charges)
      : ctx.load(chargesOf, { id: policy.id, length: policy.ledgerLength ?? MAX_LEDGER_CHARGES }).then(metered);
  }

  @FieldResolver(() => PolicyStatus, { description: 'Where the policy stands today (UTC)' })
  status(@Root() policy: PolicyRead): PolicyStatus {
    return policyStatus(policy);
  }

  @FieldResolver(() => PolicyCancellation, { nullable: true, description: 'Its cancellation, also while it lies in the future; else null' })
  cancellation(@Root() policy: PolicyRead): PolicyCancellation | null {
    return policy.cancellation ?? null;
  }

  @FieldResolver(() => Int, {
    description:
      'The version of the policy: 1 at issue, +1 for each transaction, payment and refund (REST: the ETag). A receiver that gets events out of order keeps the highest',
  })
  version(@Root() policy: PolicyRead): number {
    return policy.version;
  }

  @FieldResolver(() => GraphQLSafeInt, { nullable: true, description: 'The number of the policy this one renews; else null' })
  renewalOf(@Root() policy: PolicyRead): number | null {
    return policy.renewalOf ?? null;
  }

  @FieldResolver(() => GraphQLSafeInt, { nullable: true, description: 'The number of the policy that renews this one; else null' })
  renewedBy(@Root() policy: PolicyRead): number | null {
    return policy.renewedBy ?? null;
  }

  @FieldResolver(() => PolicyTransactionConnection, {
    description: `The policy's transactions (${TRANSACTION_TYPES.join(', ')}), oldest first`,
  })
  async transactions(
    @Root() policy: PolicyRead,
    @Args(() => PageArgs) args: PageArgs,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<TransactionRead>> {
    const { first, after } = pagePosition('transaction', args);
    return toConnection('transaction', await ctx.load(transactionPages, { ownerId: policy.id, first, after }), after);
  }

  /** A policy is accessible exactly when its organization is, so this is never null. */
  @FieldResolver(() => Organization)
  async organization(@Root() policy: PolicyRead, @Ctx() ctx: RequestContext): Promise<OrganizationRead> {
    const organization = policy.organization ?? (await ctx.load(organizationById, policy.organizationId));
    if (!organization) throw organizationNotFound();
    return organization;
  }
}
