import { Args, ArgsType, Ctx, Field, FieldResolver, Info, Resolver, Root } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { GraphQLResolveInfo } from 'graphql';
import type { RequestContext } from '../graphql/context.js';
import { ConnectionType, PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import { Organization } from '../organizations/organization.entity.js';
import type { OrganizationRead } from '../organizations/organization.reads.js';
import { Policy } from './policy.entity.js';
import { policyPages, subtreePolicyPages, type PolicyRead } from './policy.reads.js';
import { PolicyFilterArgs, policyFilterOf } from './policy-filters.js';
import { policyPageWithinMeter } from './policy-page-cost.js';

/** A page of policies, optionally the whole subtree's (spec section 10), then the filters (policy-filters.ts). */
@ArgsType()
class SubtreePageArgs extends PageArgs {
  @Field(() => Boolean, {
    nullable: true,
    defaultValue: false,
    description: 'Also the policies of every descendant organization, in creation order',
  })
  includeDescendants?: boolean | null;
}

@ArgsType()
class PoliciesArgs extends PolicyFilterArgs(SubtreePageArgs) {}
export const PolicyConnection = ConnectionType('Policy', Policy);

/**
 * `Organization.policies`, served from the policies' side (as `Organization.events` is from
 * events/): policies depend on organizations, never the reverse (the layers test forbids a loop).
 */
@Resolver(() => Organization)
export class OrganizationPoliciesResolver {
  @Scoped('policies:read')
  @FieldResolver(() => PolicyConnection, {
    description: "The organization's own policies, oldest first; with includeDescendants, those of its whole subtree",
  })
  async policies(
    @Root() organization: OrganizationRead,
    @Args(() => PoliciesArgs) args: PoliciesArgs,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<PolicyRead>> {
    const { first, after } = pagePosition('policy', args);
    const batch = args.includeDescendants ? subtreePolicyPages : policyPages;
    const filter = await policyFilterOf(args, ctx.policyRules.billingGraceDays);
    const page = await ctx.load(batch, { ownerId: organization.id, first, after, filter });
    return toConnection('policy', policyPageWithinMeter(ctx.cost, info, page), after);
  }
}
