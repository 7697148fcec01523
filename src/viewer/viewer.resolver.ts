import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import { OrganizationConnection } from '../organizations/organization.resolver.js';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Organization } from '../organizations/organization.entity.js';
import { entryPointsPage, type OrganizationRead } from '../organizations/organization.reads.js';
import { Viewer } from './viewer.type.js';

@Resolver(() => Viewer)
export class ViewerResolver {
  @Authorized()
  @Query(() => Viewer)
  viewer(@CurrentPrincipal() principal: Principal): Viewer {
    return { sub: principal.sub, orgId: principal.org };
  }

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
    return toConnection('organization', await entryPointsPage(ctx.em, principal, first, after), after);
  }

  @FieldResolver(() => Organization, { nullable: true, description: "The token's org claim; null without one" })
  organization(@Root() viewer: Viewer, @Ctx() ctx: RequestContext): Promise<OrganizationRead | null> | null {
    return viewer.orgId ? ctx.loaders.organization.load(viewer.orgId) : null;
  }
}
