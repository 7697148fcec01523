import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import { findAccessibleOrganization, organizationNotFound } from './organization.reads.js';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Write } from '../graphql/write.js';
import { ConnectionType, PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import { BankAccount } from './bank-account.entity.js';
import { createOrganization } from './create-organization.js';
import { CreateOrganizationInput, MAX_BANK_ACCOUNTS, MAX_OWNERS, UpdateOrganizationInput } from './organization.input.js';
import { updateOrganization } from './update-organization.js';
import { listCost } from '../graphql/list-cost.js';
import { Organization } from './organization.entity.js';
import { Owner } from './owner.entity.js';
import {
  bankAccountsOf,
  childrenPages,
  organizationById,
  ownersOf,
  type BankAccountRead,
  type OrganizationRead,
  type OwnerRead,
} from './organization.reads.js';

export const OrganizationConnection = ConnectionType('Organization', Organization);

@Resolver(() => Organization)
export class OrganizationResolver {
  @Authorized()
  // Its data fields need organizations:read (the type's scope); through it, `policies` needs policies:read and `events` events:read.
  @Scoped('any')
  @Query(() => Organization, {
    nullable: true,
    description: 'An organization the caller may access (its org or below, or created by it or below); else null and NOT_FOUND',
  })
  async organization(
    @Arg('id', () => ID) id: string,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<OrganizationRead> {
    const organization = await findAccessibleOrganization(ctx.db, principal, id);
    if (!organization) throw organizationNotFound();
    return organization;
  }

  @Authorized()
  @Scoped('organizations:write')
  @Write({ budget: 'creates', readBack: 'organization' })
  @Mutation(() => Organization, { description: 'Creates an organization with its address, bank accounts and owners, all or nothing' })
  async createOrganization(
    @Arg('input', () => CreateOrganizationInput) input: CreateOrganizationInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<OrganizationRead> {
    const { db, origin, cipher, deadline, idempotency } = ctx;
    return createOrganization({ db, principal, origin, cipher, deadline, idempotency }, input);
  }

  @Authorized()
  @Scoped('organizations:write')
  @Write({ budget: 'creates', readBack: 'organization', record: 'id' })
  @Mutation(() => Organization, {
    description:
      'Changes an organization as a merge patch (RFC 7396): null removes an optional field, address is merged, bankAccounts and owners are replaced whole. ' +
      'With ifVersion, refused with PRECONDITION_FAILED (nothing written) unless the organization is at that version. A change that changes nothing keeps the version and records no event',
  })
  async updateOrganization(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateOrganizationInput) input: UpdateOrganizationInput,
    @Arg('ifVersion', () => Int, { nullable: true, description: 'The version the change was made against (REST: If-Match)' })
    ifVersion: number | null | undefined,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<OrganizationRead> {
    const { db, origin, cipher, deadline, idempotency } = ctx;
    return updateOrganization({ db, principal, origin, cipher, deadline, idempotency }, id, input, ifVersion ?? null);
  }

  @FieldResolver(() => ID, { nullable: true, description: 'The direct parent; null for a root' })
  parentId(@Root() organization: OrganizationRead): string | null {
    return organization.parentId;
  }

  @FieldResolver(() => Organization, {
    nullable: true,
    description: 'The direct parent when the caller may access it; null for a root or a parent out of reach',
  })
  parent(@Root() organization: OrganizationRead, @Ctx() ctx: RequestContext): Promise<OrganizationRead | null> | null {
    return organization.parentId ? ctx.load(organizationById, organization.parentId) : null;
  }

  @FieldResolver(() => OrganizationConnection, { description: 'Direct children, oldest first' })
  async children(
    @Root() organization: OrganizationRead,
    @Args(() => PageArgs) args: PageArgs,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<OrganizationRead>> {
    const { first, after } = pagePosition('organization', args);
    return toConnection('organization', await ctx.load(childrenPages, { ownerId: organization.id, first, after }), after);
  }

  @FieldResolver(() => [BankAccount], { complexity: listCost(MAX_BANK_ACCOUNTS) })
  bankAccounts(@Root() organization: OrganizationRead, @Ctx() ctx: RequestContext): BankAccountRead[] | Promise<BankAccountRead[]> {
    return organization.bankAccounts ?? ctx.load(bankAccountsOf, organization.id);
  }

  @FieldResolver(() => [Owner], { complexity: listCost(MAX_OWNERS) })
  owners(@Root() organization: OrganizationRead, @Ctx() ctx: RequestContext): OwnerRead[] | Promise<OwnerRead[]> {
    return organization.owners ?? ctx.load(ownersOf, organization.id);
  }
}
