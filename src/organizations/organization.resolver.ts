import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { findAccessibleOrganization } from '../auth/access-rule.js';
import type { RequestContext } from '../graphql/context.js';
import { ConnectionType, PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import { notFound } from '../errors/errors.js';
import { Policy } from '../policies/policy.entity.js';
import { BankAccount } from './bank-account.entity.js';
import { createOrganization } from './create-organization.js';
import { CreateOrganizationInput, MAX_BANK_ACCOUNTS, MAX_OWNERS } from './organization.input.js';
import { listCost } from '../graphql-server/query-cost.js';
import { Organization } from './organization.entity.js';
import { Owner } from './owner.entity.js';
import { organizationViewOf, type BankAccountView, type OrganizationView, type OwnerView } from './organization.view.js';
import type { PolicyView } from '../policies/policy.view.js';

export const organizationNotFound = () => notFound('Organization not found.');

const OrganizationConnection = ConnectionType('Organization', Organization);
const PolicyConnection = ConnectionType('Policy', Policy);

@Resolver(() => Organization)
export class OrganizationResolver {
  @Authorized()
  @Query(() => Organization, {
    nullable: true,
    description: 'An organization the caller may access (its org or below, or created by it or below); else null and NOT_FOUND',
  })
  async organization(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<OrganizationView> {
    const organization = await findAccessibleOrganization(ctx.em, ctx.principal!, id);
    if (!organization) throw organizationNotFound();
    return organization;
  }

  @Authorized()
  @Mutation(() => Organization, { description: 'Creates an organization with its address, bank accounts and owners, all or nothing' })
  async createOrganization(
    @Arg('input', () => CreateOrganizationInput) input: CreateOrganizationInput,
    @Ctx() ctx: RequestContext,
  ): Promise<OrganizationView> {
    return organizationViewOf(await createOrganization(ctx, input));
  }

  @FieldResolver(() => ID, { nullable: true, description: 'The direct parent; null for a root' })
  parentId(@Root() organization: OrganizationView): string | null {
    return organization.parentId;
  }

  @FieldResolver(() => Organization, {
    nullable: true,
    description: 'The direct parent when the caller may access it; null for a root or a parent out of reach',
  })
  parent(@Root() organization: OrganizationView, @Ctx() ctx: RequestContext): Promise<OrganizationView | null> | null {
    return organization.parentId ? ctx.loaders.organization.load(organization.parentId) : null;
  }

  @FieldResolver(() => OrganizationConnection, { description: 'Direct children, oldest first' })
  async children(
    @Root() organization: OrganizationView,
    @Args(() => PageArgs) args: PageArgs,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<OrganizationView>> {
    const { first, after } = pagePosition('organization', args);
    return toConnection('organization', await ctx.loaders.children.load({ ownerId: organization.id, first, after }));
  }

  @FieldResolver(() => PolicyConnection, { description: "The organization's own policies, oldest first" })
  async policies(
    @Root() organization: OrganizationView,
    @Args(() => PageArgs) args: PageArgs,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<PolicyView>> {
    const { first, after } = pagePosition('policy', args);
    return toConnection('policy', await ctx.loaders.policies.load({ ownerId: organization.id, first, after }));
  }

  @FieldResolver(() => [BankAccount], { complexity: listCost(MAX_BANK_ACCOUNTS) })
  bankAccounts(@Root() organization: OrganizationView, @Ctx() ctx: RequestContext): BankAccountView[] | Promise<BankAccountView[]> {
    return organization.bankAccounts ?? ctx.loaders.bankAccounts.load(organization.id);
  }

  @FieldResolver(() => [Owner], { complexity: listCost(MAX_OWNERS) })
  owners(@Root() organization: OrganizationView, @Ctx() ctx: RequestContext): OwnerView[] | Promise<OwnerView[]> {
    return organization.owners ?? ctx.loaders.owners.load(organization.id);
  }
}
