import { Arg, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import { assertScope, Scoped } from '../auth/scope-gate.js';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../errors/errors.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Node } from '../graphql/node.js';
import { findAccessibleOrganization, type OrganizationRead } from '../organizations/organization.reads.js';
import { findAccessiblePolicyById, type PolicyRead } from '../policies/policy.reads.js';
import { findAccessibleQuote, type QuoteRead } from '../quotes/quote.reads.js';

@Resolver()
export class NodeResolver {
  /** Through the access rule like every read: inaccessible and unknown ids are the same null. */
  @Authorized()
  @Scoped('any')
  @Query(() => Node, {
    nullable: true,
    description: 'An organization, policy or quote by its id, if the caller may access it; else null and NOT_FOUND',
  })
  async node(
    @Arg('id', () => ID) id: string,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<OrganizationRead | PolicyRead | QuoteRead> {
    const organization = await findAccessibleOrganization(ctx.db, principal, id);
    if (organization) return organization;
    // A key's scopes (contract section 20): an organization's data fields check theirs on its type.
    const found = (await findAccessiblePolicyById(ctx.db, principal, id)) ?? (await findAccessibleQuote(ctx.db, principal, id));
    if (!found) throw notFound();
    assertScope(principal, 'policies:read');
    return found;
  }
}
