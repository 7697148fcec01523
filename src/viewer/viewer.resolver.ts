import { Authorized, Ctx, Field, FieldResolver, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Organization } from '../organizations/organization.entity.js';
import type { OrganizationRead } from '../organizations/organization.reads.js';

@ObjectType('Viewer', { simpleResolvers: true, description: 'The caller, as its token describes it' })
export class Viewer {
  @Field(() => String, { description: 'The token subject' })
  sub!: string;

  orgId!: string | null;
}

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
