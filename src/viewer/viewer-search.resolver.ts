import type { GraphQLResolveInfo } from 'graphql';
import { Args, ArgsType, Ctx, Field, FieldResolver, ID, Info, Resolver } from 'type-graphql';
import type { Principal } from '../auth/principal.js';
import { Scoped } from '../auth/scope-gate.js';
import { toConnection, type Connection } from '../graphql/connection.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { SEARCH_START, SearchArgs, searchPosition, encodeSearchPosition } from '../graphql/search-position.js';
import { organizationById, organizationNotFound, type OrganizationRead } from '../organizations/organization.reads.js';
import { OrganizationConnection } from '../organizations/organization.resolver.js';
import { searchOrganizations } from '../organizations/organization-search.js';
import { PolicyConnection } from '../policies/organization-policies.resolver.js';
import { PolicyFilterArgs, policyFilterOf } from '../policies/policy-filters.js';
import { policyPageWithinMeter } from '../policies/policy-page-cost.js';
import { searchPolicies } from '../policies/policy-search.js';
import type { PolicyRead } from '../policies/policy.reads.js';
import { isUuid } from '../values/identifiers.js';
import { Viewer } from './viewer.type.js';

/** A search within the caller's reach, or one organization's subtree. */
@ArgsType()
class ScopedSearchArgs extends SearchArgs {
  @Field(() => ID, {
    nullable: true,
    description: 'Only this organization and its descendants (404 when out of reach); absent: every organization the caller may access',
  })
  organizationId?: string | null;
}

@ArgsType()
class SearchPoliciesArgs extends PolicyFilterArgs(ScopedSearchArgs) {}

/**
 * The searches of contract section 23, on Viewer: typo-tolerant, best match first then newest,
 * only within what the caller may access. Their cursors hold the whole order (rank, then seq):
 * search-position.ts.
 */
@Resolver(() => Viewer)
export class ViewerSearchResolver {
  @Scoped('organizations:read')
  @FieldResolver(() => OrganizationConnection, {
    description: 'Organizations by legalName, typos forgiven, best match first, then newest; only those the caller may access',
  })
  async searchOrganizations(
    @Args(() => ScopedSearchArgs) args: ScopedSearchArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<OrganizationRead>> {
    const { q, first, after } = searchPosition('organization-search', args);
    await assertInReach(ctx, args.organizationId);
    ctx.deadline.assertOpen();
    const page = await searchOrganizations(ctx.db, principal, { q, organizationId: args.organizationId, first, after });
    return toConnection('organization-search', page, continued(after));
  }

  @Scoped('policies:read')
  @FieldResolver(() => PolicyConnection, {
    description:
      'Policies by owner name (first and last), pet name and internalID, typos forgiven, and a q of digits by number (that one first); ' +
      'best match first, then newest; only those the caller may access. A filtered page, or one of a subtree, may be short, even empty, with hasNextPage true',
  })
  async searchPolicies(
    @Args(() => SearchPoliciesArgs) args: SearchPoliciesArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<PolicyRead>> {
    const { q, first, after } = searchPosition('policy-search', args);
    const filter = await policyFilterOf(args, ctx.policyRules.billingGraceDays);
    await assertInReach(ctx, args.organizationId);
    ctx.deadline.assertOpen();
    const search = { q, organizationId: args.organizationId, filter, first, after };
    const page = await searchPolicies(ctx.db, principal, search, () => ctx.deadline.assertOpen());
    return toConnection('policy-search', policyPageWithinMeter(ctx.cost, info, page), continued(after));
  }
}

/** An organizationId out of reach (or not an id) is 404, as for the lists (contract section 10). */
async function assertInReach(ctx: RequestContext, organizationId: string | null | undefined): Promise<void> {
  if (organizationId == null) return;
  if (!isUuid(organizationId) || !(await ctx.load(organizationById, organizationId.toLowerCase()))) throw organizationNotFound();
}

/** toConnection's `after`: '0' on the first page (no previous page), else the position continued from. */
const continued = (after: typeof SEARCH_START) => (after === SEARCH_START ? '0' : encodeSearchPosition(after));
