import { Arg, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { findAccessiblePolicy } from '../auth/access-rule.js';
import type { RequestContext } from '../graphql/context.js';
import { notFound } from '../errors/errors.js';
import { Organization } from '../organizations/organization.entity.js';
import { Charge } from './charge.entity.js';
import { CoveragePlan } from './coverage-plan.entity.js';
import { createPolicy } from './create-policy.js';
import { CreatePolicyInput } from './policy.input.js';
import { Policy } from './policy.entity.js';
import type { ChargeView, PolicyView } from './policy.view.js';
import { MAX_CHARGES } from './premium-schedule.js';
import { listCost } from '../graphql-server/query-cost.js';
import type { OrganizationView } from '../organizations/organization.view.js';

export const policyNotFound = () => notFound('Policy not found.');

@Resolver(() => Policy)
export class PolicyResolver {
  @Authorized()
  @Query(() => Policy, {
    nullable: true,
    description: 'A policy of an organization the caller may access; else null and NOT_FOUND',
  })
  async policy(@Arg('number', () => GraphQLSafeInt) number: number, @Ctx() ctx: RequestContext): Promise<PolicyView> {
    const policy = await findAccessiblePolicy(ctx.em, ctx.principal!, number);
    if (!policy) throw policyNotFound();
    return policy;
  }

  @Authorized()
  @Query(() => [CoveragePlan], { description: 'The coverage catalog, cheapest first' })
  coverages(@Ctx() ctx: RequestContext): Promise<CoveragePlan[]> {
    return ctx.em.find(CoveragePlan, {}, { orderBy: { monthlyPremium: 'asc' } });
  }

  @Authorized()
  @Mutation(() => Policy, { description: 'Creates a policy with its coverage snapshot and premium schedule, all or nothing' })
  createPolicy(@Arg('input', () => CreatePolicyInput) input: CreatePolicyInput, @Ctx() ctx: RequestContext): Promise<PolicyView> {
    return createPolicy(ctx, input);
  }

  @FieldResolver(() => [Charge], { description: 'The premium schedule, in period order', complexity: listCost(MAX_CHARGES) })
  charges(@Root() policy: PolicyView, @Ctx() ctx: RequestContext): ChargeView[] | Promise<ChargeView[]> {
    return policy.charges ?? ctx.loaders.charges.load(policy.id);
  }

  /** A policy is accessible exactly when its organization is, so this is never null. */
  @FieldResolver(() => Organization)
  async organization(@Root() policy: PolicyView, @Ctx() ctx: RequestContext): Promise<OrganizationView> {
    const organization = policy.organization ?? (await ctx.loaders.organization.load(policy.organizationId));
    if (!organization) throw notFound('Organization not found.');
    return organization;
  }
}
