import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Args, ArgsType, Authorized, Ctx, Field, FieldResolver, ID, Int, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { Principal } from '../auth/principal.js';
import { ConnectionType, PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Organization } from '../organizations/organization.entity.js';
import { organizationNotFound, targetOrganizationId, type OrganizationRead } from '../organizations/organization.reads.js';
import { AUDIT_ACTIONS } from '../outbox/audit-entry.js';
import type { AuditEntryRead } from './audit-chain.js';
import { auditFilters, auditPage, verifyAuditChain, type AuditVerification } from './audit.reads.js';

/** Who wrote an entry (contract sections 20 and 21). */
@ObjectType('AuditActor', { simpleResolvers: true })
export class AuditActor {
  @Field(() => String, { description: "The token's `sub`; `apikey:<id>` for an API key; `system` for the service's own work" })
  sub!: string;

  @Field(() => ID, { nullable: true, description: "The API key's id when a key made the request" })
  apiKeyId!: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The client's address (as the service's trust proxy setting judges it); null for the service's own work",
  })
  ip!: string | null;

  @Field(() => String, { nullable: true, description: 'The request’s User-Agent header' })
  userAgent!: string | null;
}

@ObjectType('AuditTarget', { simpleResolvers: true })
export class AuditTarget {
  @Field(() => String, { description: 'organization, policy, transaction, quote, payment, refund, webhook_endpoint, api_key' })
  type!: string;

  @Field(() => ID)
  id!: string;
}

/** One audit entry (contract section 21). */
@ObjectType('AuditEntry', { simpleResolvers: true })
export class AuditEntry {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: 'RFC 3339, UTC, microseconds' })
  occurredAt!: string;

  @Field(() => String, { description: `<resource>.<verb>: ${AUDIT_ACTIONS.join(', ')}` })
  action!: string;

  @Field(() => AuditActor)
  actor!: AuditActor;

  @Field(() => [AuditTarget])
  targets!: AuditTarget[];

  @Field(() => ID, { description: 'The organization the write was in' })
  organizationId!: string;

  @Field(() => String, { nullable: true, description: "The request's X-Request-Id; null for the service's own work" })
  requestId!: string | null;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'Each changed field as { from, to }, masked as reads mask them; null on creates',
  })
  changes!: Record<string, unknown> | null;

  @Field(() => String, {
    nullable: true,
    description: 'SHA-256 chaining the entry to the previous one of its tree; null for the few seconds before it is sealed',
  })
  hash!: string | null;
}

const AuditEntryConnection = ConnectionType('AuditEntry', AuditEntry);

@ObjectType('AuditVerification', { simpleResolvers: true })
export class AuditVerificationType {
  @Field(() => Boolean, { description: 'Every sealed entry of the tree is where its chain says, as it was sealed' })
  ok!: boolean;

  @Field(() => Int, { description: 'Sealed entries checked (up to the first broken one)' })
  checked!: number;

  @Field(() => ID, { nullable: true, description: 'The first entry whose chain breaks: changed, or after a removed one, or out of order' })
  firstBrokenId!: string | null;
}

@ArgsType()
class AuditLogArgs extends PageArgs {
  @Field(() => [String], { nullable: true, description: 'Only these actions; all when absent' })
  actions?: string[] | null;

  @Field(() => String, { nullable: true, description: 'RFC 3339: entries at or after' })
  since?: string | null;

  @Field(() => String, { nullable: true, description: 'RFC 3339: entries before' })
  until?: string | null;
}

@ArgsType()
class AccessibleAuditLogArgs extends AuditLogArgs {
  @Field(() => ID, { nullable: true, description: "Whose subtree; defaults to the token's org" })
  organizationId?: string | null;

  @Field(() => String, { nullable: true, description: "Only this actor's entries (its `sub`)" })
  actorSub?: string | null;
}

async function subtreeAuditLog(
  ctx: RequestContext,
  principal: Principal,
  organizationId: string,
  args: AuditLogArgs & { actorSub?: string | null },
): Promise<Connection<AuditEntryRead>> {
  const { first, after } = pagePosition('audit', args);
  const filters = auditFilters(args);
  ctx.deadline.assertOpen();
  const page = await auditPage(ctx.db, principal, organizationId, filters, first, after);
  if (!page) throw organizationNotFound();
  return toConnection('audit', page, after);
}

/**
 * The audit log (contract section 21): an organization's subtree's entries, newest first, and a
 * tree's chain verified. Needs `audit:read` when called by an API key (contract section 20).
 */
@Resolver(() => AuditEntry)
export class AuditLogResolver {
  @Authorized()
  @Scoped('audit:read')
  @Query(() => AuditEntryConnection, {
    description: "The audit entries of an organization's subtree (default: the token's org), newest first",
  })
  auditLog(
    @Args(() => AccessibleAuditLogArgs) args: AccessibleAuditLogArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<AuditEntryRead>> {
    return subtreeAuditLog(ctx, principal, targetOrganizationId(args.organizationId, principal), args);
  }

  @Authorized()
  @Scoped('audit:read')
  @Query(() => AuditVerificationType, {
    description: "Checks a root organization's audit chain: every sealed entry unchanged, none removed, none reordered",
  })
  async auditLogVerification(
    @Arg('organizationId', () => ID, { nullable: true, description: "A root organization; defaults to the token's org" })
    organizationId: string | null | undefined,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<AuditVerification> {
    ctx.deadline.assertOpen();
    const verified = await verifyAuditChain(ctx.db, principal, targetOrganizationId(organizationId, principal));
    if (!verified) throw organizationNotFound();
    return verified;
  }
}

/** `Organization.auditLog`: its subtree's entries. */
@Resolver(() => Organization)
export class OrganizationAuditLogResolver {
  @Scoped('audit:read')
  @FieldResolver(() => AuditEntryConnection, { description: 'The audit entries of this organization and every descendant, newest first' })
  auditLog(
    @Root() organization: OrganizationRead,
    @Args(() => AuditLogArgs) args: AuditLogArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<AuditEntryRead>> {
    return subtreeAuditLog(ctx, principal, organization.id, args);
  }
}
