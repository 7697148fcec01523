import { Authorized, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Organization } from '../organizations/organization.entity.js';
import type { OrganizationRead } from '../organizations/organization.reads.js';
import { Viewer } from './viewer.type.js';

@Resolver(() => Viewer)
export class ViewerResolver {
  @Authorized()
  @Query(() => Viewer)
  viewer(@CurrentPrincipal() principal: Principal): Viewer {
    return { sub: principal.sub, orgId: principal.org };
  }

  @FieldResolver(() => Organization, { nullable: true, description: "The token's org claim; null without one" })
  organization(@Root() viewer: Viewer, @Ctx() ctx: RequestContext): Promise<OrganizationRead | null> | null {
    return viewer.orgId ? ctx.loaders.organization.load(viewer.orgId) : null;
  }
}
