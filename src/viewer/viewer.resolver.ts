import { Args, ArgsType, Authorized, Ctx, Field, FieldResolver, Info, Query, Resolver, Root } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { GraphQLResolveInfo } from 'graphql';
import { PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import { OrganizationConnection } from '../organizations/organization.resolver.js';
import { PolicyConnection } from '../policies/organization-policies.resolver.js';
import type { PolicyRead } from '../policies/policy.reads.js';
import { policiesByInternalId } from '../policies/policy-internal-id.reads.js';
import { PolicyFilterArgs, policyFilterOf } from '../policies/policy-filters.js';
import { policyPageWithinMeter } from '../policies/policy-page-cost.js';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Organization } from '../organizations/organization.entity.js';
import { entryPointsPage, organizationById, type OrganizationRead } from '../organizations/organization.reads.js';
import { Viewer } from './viewer.type.js';

/** Lookup by the integrator's own key (contract section 18), then the filters (contract section 23). */
@ArgsType()
class InternalIdPageArgs extends PageArgs {
  @Field(() => String, { description: 'The internalID the policies were created with (exact)' })
  internalID!: string;
}

@ArgsType()
class PoliciesByInternalIdArgs extends PolicyFilterArgs(InternalIdPageArgs) {}

@Resolver(() => Viewer)
export class ViewerResolver {
  @Authorized()
  @Scoped('any')
  @Query(() => Viewer)
  viewer(@CurrentPrincipal() principal: Principal): Viewer {
    return { sub: principal.sub, orgId: principal.org };
  }

  @Scoped('organizations:read')
  @FieldResolver(() => OrganizationConnection, {
    description: 'Where the caller starts: the organizations it may access whose parent it may not (or that have none), oldest first',
  })
  async organizations(
    @Args(() => PageArgs) args: PageArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<OrganizationRead>> {
    const { first, after } = pagePosition('organization', args);
    ctx.deadline.assertOpen();
    return toConnection('organization', await entryPointsPage(ctx.db, principal, first, after), after);
  }

  @Scoped('policies:read')
  @FieldResolver(() => PolicyConnection, {
    description:
      "The policies with this internalID (the integrator's own key, exact) among those the caller may access, oldest first; one out of reach is not listed",
  })
  async policies(
    @Args(() => PoliciesByInternalIdArgs) args: PoliciesByInternalIdArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<PolicyRead>> {
    const { first, after } = pagePosition('policy', args);
    const filter = await policyFilterOf(args, ctx.policyRules.billingGraceDays);
    ctx.deadline.assertOpen();
    const lookup = { internalID: args.internalID, filter, first, after };
    const page = await policiesByInternalId(ctx.db, principal, lookup, () => ctx.deadline.assertOpen());
    return toConnection('policy', policyPageWithinMeter(ctx.cost, info, page), after);
  }

  @Scoped('organizations:read')
  @FieldResolver(() => Organization, { nullable: true, description: "The token's org claim; null without one" })
  organization(@Root() viewer: Viewer, @Ctx() ctx: RequestContext): Promise<OrganizationRead | null> | null {
    return viewer.orgId ? ctx.load(organizationById, viewer.orgId) : null;
  }
}
