import { Authorized, Ctx, Field, FieldResolver, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context.js';
import { Organization } from '../organizations/organization.entity.js';
import type { OrganizationView } from '../organizations/organization.view.js';

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
  viewer(@Ctx() ctx: RequestContext): Viewer {
    return { sub: ctx.principal!.sub, orgId: ctx.principal!.org };
  }

  @FieldResolver(() => Organization, { nullable: true, description: "The token's org claim; null without one" })
  organization(@Ctx() ctx: RequestContext): Promise<OrganizationView | null> | null {
    return ctx.principal!.org ? ctx.loaders.organization.load(ctx.principal!.org) : null;
  }
}
