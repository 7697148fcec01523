import { Arg, Args, ArgsType, Authorized, Ctx, Field, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { Principal } from '../auth/principal.js';
import { ConnectionType, PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Write } from '../graphql/write.js';
import { Organization } from '../organizations/organization.entity.js';
import { findTargetOrganization, targetOrganizationId, type OrganizationRead } from '../organizations/organization.reads.js';
import { CreateApiKeyInput, RotateApiKeyInput } from './api-key.input.js';
import { apiKeyNotFound, apiKeysPage, findAccessibleApiKey, type ApiKeyRead } from './api-key.reads.js';
import { ApiKey, CreatedApiKey } from './api-key.type.js';
import { createApiKey, revokeApiKey, rotateApiKey, type ApiKeyWriteScope, type CreatedApiKeyRead } from './api-key.writes.js';

const ApiKeyConnection = ConnectionType('ApiKey', ApiKey);

@ArgsType()
class ApiKeysArgs extends PageArgs {
  @Field(() => ID, { nullable: true, description: "Whose keys; defaults to the token's org" })
  organizationId?: string | null;
}

const writeScope = (ctx: RequestContext, principal: Principal): ApiKeyWriteScope => ({
  db: ctx.db,
  principal,
  hashes: ctx.apiKeyHashes,
  origin: ctx.origin,
  idempotency: ctx.idempotency,
});

/**
 * API keys (contract section 20), through the access rule on their organization. Made, rotated
 * and revoked by tokens only (a key cannot mint keys); read with `organizations:read`.
 */
@Resolver(() => ApiKey)
export class ApiKeyResolver {
  @Authorized()
  @Scoped('tokens-only')
  @Write({ budget: 'creates', readBack: null })
  @Mutation(() => CreatedApiKey, { description: 'Makes an API key for an organization; the key itself is shown only in this answer' })
  createApiKey(
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<CreatedApiKeyRead> {
    ctx.deadline.assertOpen();
    return createApiKey(writeScope(ctx, principal), input);
  }

  @Authorized()
  @Scoped('tokens-only')
  @Write({ budget: 'creates', readBack: null, record: 'id' })
  @Mutation(() => CreatedApiKey, {
    description: 'A new key in place of this one (same name, organization, scopes and lifetime); the old one works for graceSeconds more',
  })
  rotateApiKey(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => RotateApiKeyInput, { nullable: true }) input: RotateApiKeyInput | null,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<CreatedApiKeyRead> {
    ctx.deadline.assertOpen();
    return rotateApiKey(writeScope(ctx, principal), id, input);
  }

  @Authorized()
  @Scoped('tokens-only')
  @Write({ budget: 'creates', readBack: null })
  @Mutation(() => ID, { description: 'Revokes a key: every instance refuses it within 2 seconds; returns its id' })
  revokeApiKey(@Arg('id', () => ID) id: string, @CurrentPrincipal() principal: Principal, @Ctx() ctx: RequestContext): Promise<string> {
    ctx.deadline.assertOpen();
    return revokeApiKey(writeScope(ctx, principal), id);
  }

  @Authorized()
  @Scoped('organizations:read')
  @Query(() => ApiKey, {
    nullable: true,
    description: 'An unrevoked key of an organization the caller may access; else null and NOT_FOUND',
  })
  async apiKey(@Arg('id', () => ID) id: string, @CurrentPrincipal() principal: Principal, @Ctx() ctx: RequestContext): Promise<ApiKeyRead> {
    const key = await findAccessibleApiKey(ctx.db, principal, id);
    if (!key) throw apiKeyNotFound();
    return key;
  }

  @Authorized()
  @Scoped('organizations:read')
  @Query(() => ApiKeyConnection, { description: "An organization's unrevoked keys, oldest first" })
  async apiKeys(
    @Args(() => ApiKeysArgs) args: ApiKeysArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<ApiKeyRead>> {
    const { first, after } = pagePosition('apiKey', args);
    const organizationId = targetOrganizationId(args.organizationId, principal);
    const organization = await findTargetOrganization(ctx.db, principal, organizationId, args.organizationId != null);
    return toConnection('apiKey', await apiKeysPage(ctx.db, organization.id, first, after), after);
  }
}

/** `Organization.apiKeys`: its own unrevoked keys (each key acts for one organization and its subtree). */
@Resolver(() => Organization)
export class OrganizationApiKeysResolver {
  @FieldResolver(() => ApiKeyConnection, { description: "This organization's unrevoked API keys, oldest first" })
  async apiKeys(
    @Root() organization: OrganizationRead,
    @Args(() => PageArgs) args: PageArgs,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<ApiKeyRead>> {
    const { first, after } = pagePosition('apiKey', args);
    ctx.deadline.assertOpen();
    return toConnection('apiKey', await apiKeysPage(ctx.db, organization.id, first, after), after);
  }
}
