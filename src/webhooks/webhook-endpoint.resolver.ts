import { Arg, Args, ArgsType, Authorized, Ctx, Field, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { Principal } from '../auth/principal.js';
import { ConnectionType, PageArgs, pagePosition, toConnection, type Connection } from '../graphql/connection.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Write } from '../graphql/write.js';
import { findTargetOrganization, targetOrganizationId } from '../organizations/organization.reads.js';
import { createWebhookEndpoint } from './create-webhook-endpoint.js';
import { attemptPages, type AttemptRead } from './webhook-attempt.reads.js';
import { WebhookAttempt } from './webhook-attempt.type.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { updateWebhookEndpoint } from './update-webhook-endpoint.js';
import { CreateWebhookEndpointInput, RotateWebhookSecretInput, UpdateWebhookEndpointInput } from './webhook-endpoint.input.js';
import {
  deleteAccessibleEndpoint,
  endpointNotFound,
  endpointsPage,
  findAccessibleEndpoint,
  type EndpointRead,
} from './webhook-endpoint.reads.js';
import { CreatedWebhookEndpoint, WebhookEndpoint, WebhookSecret } from './webhook-endpoint.type.js';

const WebhookEndpointConnection = ConnectionType('WebhookEndpoint', WebhookEndpoint);
const WebhookAttemptConnection = ConnectionType('WebhookAttempt', WebhookAttempt);

@ArgsType()
class EndpointsArgs extends PageArgs {
  @Field(() => ID, { nullable: true, description: "Whose endpoints; defaults to the token's org" })
  organizationId?: string | null;
}

/** Webhook endpoints (spec section 11), through the access rule on their organization. */
@Resolver(() => WebhookEndpoint)
export class WebhookEndpointResolver {
  @Authorized()
  @Scoped('webhooks:write')
  @Write({ budget: 'creates', readBack: null })
  @Mutation(() => CreatedWebhookEndpoint, {
    description: "Registers an endpoint for an organization's subtree; its secret is shown only here",
  })
  createWebhookEndpoint(
    @Arg('input', () => CreateWebhookEndpointInput) input: CreateWebhookEndpointInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<EndpointRead & { secret: string }> {
    ctx.deadline.assertOpen();
    const { db, origin, cipher, webhookUrls: urls, idempotency } = ctx;
    return createWebhookEndpoint({ db, principal, origin, cipher, urls, idempotency }, input);
  }

  @Authorized()
  @Scoped('webhooks:write')
  @Write({ budget: 'creates', readBack: null, record: 'id' })
  @Mutation(() => WebhookEndpoint, {
    description:
      'Changes an endpoint as a merge patch (contract section 22): an absent field is kept, null removes an optional one. ' +
      'enabled: false disables it ("disabled by request": it gets nothing, its pending deliveries fail); enabled: true makes it active again, its back-off cleared',
  })
  updateWebhookEndpoint(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateWebhookEndpointInput) input: UpdateWebhookEndpointInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<EndpointRead> {
    ctx.deadline.assertOpen();
    const { db, origin, webhookUrls: urls, idempotency } = ctx;
    return updateWebhookEndpoint({ db, principal, origin, urls, idempotency }, id, input);
  }

  @Authorized()
  @Scoped('webhooks:write')
  @Write({ budget: 'creates', readBack: null })
  @Mutation(() => ID, { description: 'Deletes an endpoint: it receives nothing more; returns its id' })
  async deleteWebhookEndpoint(
    @Arg('id', () => ID) id: string,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<string> {
    ctx.deadline.assertOpen();
    if (!(await deleteAccessibleEndpoint(ctx.db, principal, ctx.origin, id))) throw endpointNotFound();
    return id;
  }

  @Authorized()
  @Scoped('webhooks:write')
  @Write({ budget: 'creates', readBack: null, record: 'id' })
  @Mutation(() => WebhookSecret, {
    description: 'A new signing secret, shown only here; deliveries carry a signature with the old one too until graceSeconds have passed',
  })
  rotateWebhookEndpointSecret(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => RotateWebhookSecretInput, { nullable: true }) input: RotateWebhookSecretInput | null,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<{ secret: string }> {
    ctx.deadline.assertOpen();
    const { db, origin, cipher, idempotency } = ctx;
    return rotateWebhookSecret({ db, principal, origin, cipher, idempotency }, id, input?.graceSeconds);
  }

  @Authorized()
  @Scoped('webhooks:write')
  @Query(() => WebhookEndpoint, {
    nullable: true,
    description: 'An endpoint of an organization the caller may access; else null and NOT_FOUND',
  })
  async webhookEndpoint(
    @Arg('id', () => ID) id: string,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<EndpointRead> {
    const endpoint = await findAccessibleEndpoint(ctx.db, principal, id);
    if (!endpoint) throw endpointNotFound();
    return endpoint;
  }

  @Authorized()
  @Scoped('webhooks:write')
  @Query(() => WebhookEndpointConnection, { description: 'The endpoints registered on an organization, oldest first' })
  async webhookEndpoints(
    @Args(() => EndpointsArgs) args: EndpointsArgs,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<EndpointRead>> {
    const { first, after } = pagePosition('webhookEndpoint', args);
    const organizationId = targetOrganizationId(args.organizationId, principal);
    const organization = await findTargetOrganization(ctx.db, principal, organizationId, args.organizationId != null);
    return toConnection('webhookEndpoint', await endpointsPage(ctx.db, organization.id, first, after), after);
  }

  // Reached only through an endpoint that passed the access rule (webhookEndpoint, webhookEndpoints);
  // its scope is the endpoint reads' own.
  @Scoped('webhooks:write')
  @FieldResolver(() => WebhookAttemptConnection, {
    description: "Every POST of the endpoint's deliveries, newest first (contract section 22); kept as long as their events",
  })
  async attempts(
    @Root() endpoint: EndpointRead,
    @Args(() => PageArgs) args: PageArgs,
    @Ctx() ctx: RequestContext,
  ): Promise<Connection<AttemptRead>> {
    const { first, after } = pagePosition('webhookAttempt', args);
    return toConnection('webhookAttempt', await ctx.load(attemptPages, { ownerId: endpoint.id, first, after }), after);
  }
}
