import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { Scoped } from '../auth/scope-gate.js';
import type { Principal } from '../auth/principal.js';
import type { RequestContext } from '../graphql/context.js';
import { CurrentPrincipal } from '../graphql/current-principal.js';
import { Write } from '../graphql/write.js';
import { WebhookDelivery } from '../events/event.type.js';
import { recoverWebhookEndpoint } from './recover-webhook-endpoint.js';
import { redeliverEvent } from './redeliver-event.js';
import { sendTestWebhook } from './send-test-webhook.js';
import type { DeliveryRead } from '../events/event.reads.js';
import { RecoverWebhookEndpointInput } from './webhook-endpoint.input.js';
import { SentTestWebhook, WebhookRecovery } from './webhook-endpoint.type.js';

/**
 * The deliveries a caller asks for (contract section 22): a test event, a redelivery, a
 * recovery. Each is a write (budgeted, audited, keyed on REST), with the endpoint's scope.
 */
@Resolver()
export class RequestedDeliveryResolver {
  @Authorized()
  @Scoped('webhooks:write')
  @Write({ budget: 'creates', readBack: null, record: 'id' })
  @Mutation(() => SentTestWebhook, {
    description:
      'Sends a webhook.test event (data.object: { endpointId }) to this endpoint only, at once even while it is backed off; the event is kept out of event lists',
  })
  sendTestWebhook(
    @Arg('id', () => ID) id: string,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<{ eventId: string; deliveryId: string }> {
    ctx.deadline.assertOpen();
    return sendTestWebhook({ db: ctx.db, principal, origin: ctx.origin, idempotency: ctx.idempotency }, id);
  }

  @Authorized()
  @Scoped('webhooks:write')
  @Write({ budget: 'creates', readBack: null, record: 'id' })
  @Mutation(() => WebhookDelivery, {
    description:
      'Delivers an event once more to one endpoint that receives it (registered on its organization or above, its filter admitting the type): a new delivery, attempted at once',
  })
  redeliverEvent(
    @Arg('id', () => ID, { description: 'The event' }) id: string,
    @Arg('endpointId', () => ID) endpointId: string,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<DeliveryRead> {
    ctx.deadline.assertOpen();
    return redeliverEvent({ db: ctx.db, principal, origin: ctx.origin, idempotency: ctx.idempotency }, id, endpointId);
  }

  @Authorized()
  @Scoped('webhooks:write')
  @Write({ budget: 'creates', readBack: null, record: 'id' })
  @Mutation(() => WebhookRecovery, {
    description:
      'Queues again, once each, every event since input.since that the endpoint should have received and did not (its delivery failed, or it was disabled)',
  })
  recoverWebhookEndpoint(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => RecoverWebhookEndpointInput) input: RecoverWebhookEndpointInput,
    @CurrentPrincipal() principal: Principal,
    @Ctx() ctx: RequestContext,
  ): Promise<{ queued: number }> {
    ctx.deadline.assertOpen();
    return recoverWebhookEndpoint({ db: ctx.db, principal, origin: ctx.origin, idempotency: ctx.idempotency }, id, input.since);
  }
}
